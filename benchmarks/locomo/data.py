"""Reading LoCoMo (``locomo10.json``) into plain value objects for the retrieval benchmark.

LoCoMo: Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM Agents",
ACL 2024 (arXiv:2402.17753), github.com/snap-research/LoCoMo, licensed CC BY-NC 4.0. The data
file is read from outside the repository and never copied into it.

Quirks handled here (see the data's SOURCE.md):
- sessions are found through the ``session_<n>`` list keys, never the ``..._date_time`` keys
  (conv-26 has date keys for sessions that do not exist);
- evidence strings are sometimes several ids in one string ("D8:6; D9:17", "D9:1 D4:4"),
  carry a stray colon ("D:11:26") or a zero-padded turn ("D30:05"); they are split and
  normalised, and ids that still name no turn are kept apart as unresolved.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.common.paths import LOCOMO_ENV_VAR, default_locomo_path
from zenbrain.errors import InvalidInputError

__all__ = [
    "CATEGORY_NAMES",
    "RETRIEVAL_CATEGORIES",
    "Conversation",
    "Question",
    "Turn",
    "load_locomo",
    "normalise_evidence",
    "parse_conversation",
    "parse_session_datetime",
    "question_counts",
    "render_turn",
]

# The integers' meaning comes from LoCoMo's own evaluation code, not the paper's list order.
CATEGORY_NAMES: Mapping[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
# Category 5 asks about things that were never said: there is no evidence turn to retrieve.
RETRIEVAL_CATEGORIES: tuple[int, ...] = (1, 2, 3, 4)

_SESSION_KEY = re.compile(r"session_(\d+)")
_EVIDENCE_ID = re.compile(r"D:?(\d+):(\d+)")
_EVIDENCE_SEPARATORS = re.compile(r"[;,\s]+")
_SESSION_DATETIME_FORMAT = "%I:%M %p on %d %B, %Y"  # "1:56 pm on 8 May, 2023"


@dataclass(frozen=True, slots=True)
class Turn:
    """One utterance; ``text`` is what gets indexed: ``"speaker: text [image: caption]"``."""

    dia_id: str
    session: int
    speaker: str
    text: str
    session_datetime: datetime


@dataclass(frozen=True, slots=True)
class Question:
    """One QA item. ``evidence`` holds the normalised ids that name a turn of the
    conversation; ``unresolved_evidence`` the strings that could not be matched."""

    question: str
    category: int
    evidence: tuple[str, ...]
    unresolved_evidence: tuple[str, ...] = ()
    answer: str = ""


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]
    session_count: int

    def retrieval_questions(
        self, categories: Iterable[int] = RETRIEVAL_CATEGORIES
    ) -> list[Question]:
        """Questions of ``categories`` that have at least one evidence turn to find."""
        wanted = set(categories)
        return [q for q in self.questions if q.category in wanted and q.evidence]


def parse_session_datetime(raw: str) -> datetime:
    """Parse LoCoMo's ``"1:56 pm on 8 May, 2023"`` (naive: the data names no time zone)."""
    try:
        return datetime.strptime(raw.strip(), _SESSION_DATETIME_FORMAT)
    except ValueError as exc:
        raise InvalidInputError(
            f"LoCoMo session date {raw!r} does not look like '1:56 pm on 8 May, 2023'"
        ) from exc


def render_turn(speaker: str, text: str, caption: str | None) -> str:
    """The indexed text of a turn; a shared image is known only by its BLIP caption."""
    rendered = f"{speaker}: {text}"
    if caption:
        rendered += f" [image: {caption}]"
    return rendered


def normalise_evidence(raw: Iterable[Any], known_ids: Iterable[str]) -> tuple[list[str], list[str]]:
    """Split and normalise raw evidence strings; return (resolved ids, unresolved pieces).

    Resolved ids are unique and in order of appearance; a piece is unresolved when it is not
    of the form ``D<session>:<turn>`` or names no turn in ``known_ids``.
    """
    known = set(known_ids)
    resolved: list[str] = []
    unresolved: list[str] = []
    for item in raw:
        for piece in _EVIDENCE_SEPARATORS.split(str(item).strip()):
            if not piece:
                continue
            match = _EVIDENCE_ID.fullmatch(piece)
            candidate = f"D{int(match[1])}:{int(match[2])}" if match else None
            if candidate is not None and candidate in known:
                if candidate not in resolved:
                    resolved.append(candidate)
            else:
                unresolved.append(piece)
    return resolved, unresolved


def _session_numbers(conversation: Mapping[str, Any]) -> list[int]:
    numbers = [
        int(match[1])
        for key, value in conversation.items()
        if (match := _SESSION_KEY.fullmatch(key)) and isinstance(value, list)
    ]
    return sorted(numbers)


def parse_conversation(sample: Mapping[str, Any]) -> Conversation:
    """Turn one LoCoMo sample (a dict of the JSON's top-level list) into a Conversation."""
    try:
        sample_id = str(sample["sample_id"])
        conversation = sample["conversation"]
        qa_items = sample.get("qa", [])
    except (KeyError, TypeError) as exc:
        raise InvalidInputError(
            "a LoCoMo sample needs 'sample_id' and 'conversation' keys; got "
            f"{sorted(sample) if isinstance(sample, Mapping) else type(sample).__name__}"
        ) from exc

    turns: list[Turn] = []
    sessions = _session_numbers(conversation)
    for number in sessions:
        date_key = f"session_{number}_date_time"
        if date_key not in conversation:
            raise InvalidInputError(f"{sample_id}: session_{number} has no {date_key!r}")
        when = parse_session_datetime(str(conversation[date_key]))
        for raw_turn in conversation[f"session_{number}"]:
            speaker = str(raw_turn["speaker"])
            turns.append(
                Turn(
                    dia_id=str(raw_turn["dia_id"]),
                    session=number,
                    speaker=speaker,
                    text=render_turn(speaker, str(raw_turn["text"]), raw_turn.get("blip_caption")),
                    session_datetime=when,
                )
            )
    if not turns:
        raise InvalidInputError(f"{sample_id}: the conversation has no session_<n> turns")

    known_ids = [turn.dia_id for turn in turns]
    questions: list[Question] = []
    for item in qa_items:
        resolved, unresolved = normalise_evidence(item.get("evidence", []), known_ids)
        # Category-5 items mostly carry only the tempting wrong answer.
        answer = item.get("answer", item.get("adversarial_answer", ""))
        questions.append(
            Question(
                question=str(item["question"]),
                category=int(item["category"]),
                evidence=tuple(resolved),
                unresolved_evidence=tuple(unresolved),
                answer=str(answer),
            )
        )
    return Conversation(
        sample_id=sample_id,
        speakers=(str(conversation.get("speaker_a", "")), str(conversation.get("speaker_b", ""))),
        turns=tuple(turns),
        questions=tuple(questions),
        session_count=len(sessions),
    )


def load_locomo(path: str | os.PathLike[str] | None = None) -> list[Conversation]:
    """Read ``locomo10.json`` (default: :func:`default_locomo_path`) into conversations."""
    source = Path(path) if path is not None else default_locomo_path()
    if not source.is_file():
        raise InvalidInputError(
            f"LoCoMo data not found at {source}. Pass --data PATH or set {LOCOMO_ENV_VAR} to "
            "the locomo10.json file (github.com/snap-research/LoCoMo, CC BY-NC 4.0)."
        )
    try:
        raw = json.loads(source.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{source} is not valid JSON: {exc}") from exc
    if not isinstance(raw, list) or not raw:
        raise InvalidInputError(f"{source} should hold a non-empty list of LoCoMo samples")
    return [parse_conversation(sample) for sample in raw]


def question_counts(conversations: Sequence[Conversation]) -> dict[int, int]:
    """How many scorable questions each retrieval category has across ``conversations``."""
    counts = dict.fromkeys(RETRIEVAL_CATEGORIES, 0)
    for conversation in conversations:
        for question in conversation.retrieval_questions():
            counts[question.category] += 1
    return counts
