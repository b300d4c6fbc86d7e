"""The public conversational-memory datasets of the retrieval benchmark, read from a cache
folder outside the repository.

Every dataset becomes the same shape: haystacks (one conversation, or one memory archive)
of :class:`~benchmarks.locomo.data.Turn` items, each with questions whose evidence names the
items that hold the answer. The data is never shipped with zenbrain: it is read from
``~/.cache/zenbrain-bench/<dataset>/`` (or ``$ZENBRAIN_BENCH_DATA/<dataset>/``), and a
missing dataset is reported with the commands that fill its folder (:data:`DATASETS`).

- ``locomo``: LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0), 10 LLM-generated
  conversations; every turn is a memory.
- ``realtalk``: REALTALK (Lee et al., 2025, arXiv:2502.13270), 10 real 21-day messaging-app
  conversations between people, in LoCoMo's format; every message is a memory.
- ``madial-bench``: MADial-Bench, English (He et al., NAACL 2025): 160 dialogues between a
  user and an assistant, each with the memories (from one archive of 160 short event
  descriptions) the assistant's next turn should recall; the dialogue so far is the query.
- ``beam``: BEAM (Tavakoli et al., 2025, arXiv:2510.27246), its 20 chats of about 100K
  tokens: a user asks an assistant for help over ~80 sessions in three batches, many
  assistant turns long (a median of 1,400 characters); every turn is a memory. No licence is
  stated, so it is used for measuring only. A batch's first turn names its date (the "time
  anchor"); its sessions are spread evenly up to the next batch's date.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.common.paths import BENCH_DATA_ENV_VAR, LOCOMO_ENV_VAR, bench_data_root
from benchmarks.locomo.data import (
    CATEGORY_NAMES,
    Question,
    Turn,
    load_locomo,
    normalise_evidence,
    render_turn,
)
from zenbrain.errors import InvalidInputError

__all__ = [
    "DATASETS",
    "Dataset",
    "DatasetSpec",
    "Haystack",
    "MissingDatasetError",
    "first_haystacks",
    "load_dataset",
    "parse_limits",
]


class MissingDatasetError(InvalidInputError):
    """A dataset's files are not in the cache folder; the message says how to get them."""


@dataclass(frozen=True, slots=True)
class Haystack:
    """What one index holds (a conversation, an archive) and the questions asked of it."""

    haystack_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]

    def scorable_questions(self) -> list[Question]:
        return [q for q in self.questions if q.evidence]


@dataclass(frozen=True, slots=True)
class Dataset:
    name: str
    haystacks: tuple[Haystack, ...]
    category_names: Mapping[int, str]

    @property
    def turn_count(self) -> int:
        return sum(len(h.turns) for h in self.haystacks)

    def question_count(self) -> int:
        return sum(len(h.scorable_questions()) for h in self.haystacks)


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    name: str
    files: str  # what the folder must hold, for the error message
    fill: str  # shell commands that fill the folder
    source: str  # citation and licence, for the docs


DATASETS: Mapping[str, DatasetSpec] = {
    "locomo": DatasetSpec(
        name="locomo",
        files="locomo10.json",
        fill=(
            "git clone --depth 1 https://github.com/snap-research/locomo /tmp/locomo && "
            "cp /tmp/locomo/data/locomo10.json {folder}/"
        ),
        source=(
            "[LoCoMo](https://github.com/snap-research/LoCoMo) (Maharana et al., ACL 2024), "
            "CC BY-NC 4.0: 10 LLM-generated conversations"
        ),
    ),
    "realtalk": DatasetSpec(
        name="realtalk",
        files="Chat_*.json (the ten conversations of REALTALK's data/ folder)",
        fill=(
            "git clone --depth 1 https://github.com/danny911kr/REALTALK /tmp/realtalk && "
            "cp /tmp/realtalk/data/Chat_*.json {folder}/"
        ),
        source=(
            "[REALTALK](https://github.com/danny911kr/REALTALK) (Lee et al., 2025, "
            "arXiv:2502.13270): 10 real 21-day messaging-app conversations, LoCoMo's format"
        ),
    ),
    "madial-bench": DatasetSpec(
        name="madial-bench",
        files="MADial-Bench-en-dialogue.json and MADial-Bench-en-memory.json",
        fill=(
            "git clone --depth 1 https://github.com/hejunqing/MADial-Bench /tmp/madial && "
            "cp /tmp/madial/data/en/MADial-Bench-en-*.json {folder}/"
        ),
        source=(
            "[MADial-Bench](https://github.com/hejunqing/MADial-Bench) (He et al., NAACL "
            "2025), English: 160 user-assistant dialogues, 160 archived memories"
        ),
    ),
    "beam": DatasetSpec(
        name="beam",
        files="chats/100K/<n>/chat.json and probing_questions/probing_questions.json",
        fill=(
            "git clone --depth 1 https://github.com/mohammadtavakoli78/BEAM /tmp/beam && "
            "cp -r /tmp/beam/chats {folder}/"
        ),
        source=(
            "[BEAM](https://github.com/mohammadtavakoli78/BEAM) (Tavakoli et al., 2025, "
            "arXiv:2510.27246), its 20 chats of ~100K tokens; no licence stated, measured only"
        ),
    ),
}


def _missing(name: str, folder: Path) -> MissingDatasetError:
    spec = DATASETS[name]
    return MissingDatasetError(
        f"the {name} dataset is not in {folder} (expected {spec.files}). Fill it with:\n"
        f"  mkdir -p {folder} && {spec.fill.format(folder=folder)}\n"
        f"or set {BENCH_DATA_ENV_VAR} to a folder holding {name}/."
    )


def load_dataset(name: str, root: Path | None = None) -> Dataset:
    """Read dataset ``name`` from ``root/<name>/`` (default :func:`bench_data_root`)."""
    if name not in DATASETS:
        raise InvalidInputError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")
    folder = (root if root is not None else bench_data_root()) / name
    loaders = {
        "locomo": _load_locomo,
        "realtalk": _load_realtalk,
        "madial-bench": _load_madial,
        "beam": _load_beam,
    }
    return loaders[name](folder)


def _load_locomo(folder: Path) -> Dataset:
    path = folder / "locomo10.json"
    if not path.is_file():
        configured = os.environ.get(LOCOMO_ENV_VAR)
        if not configured:
            raise _missing("locomo", folder)
        path = Path(configured).expanduser()
    conversations = load_locomo(path)
    haystacks = tuple(
        Haystack(c.sample_id, c.turns, tuple(c.retrieval_questions())) for c in conversations
    )
    names = {c: CATEGORY_NAMES[c] for c in (1, 2, 3, 4)}
    return Dataset("locomo", haystacks, names)


_REALTALK_DATETIME = "%d.%m.%Y, %H:%M:%S"  # "29.12.2023, 22:42:04"
_SESSION_KEY = re.compile(r"session_(\d+)")
# REALTALK's own evaluation scores its categories as LoCoMo's 1-3.
_REALTALK_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain"}


def _realtalk_haystack(haystack_id: str, raw: Mapping[str, Any]) -> Haystack:
    turns: list[Turn] = []
    sessions = sorted(
        int(m[1])
        for key in raw
        if (m := _SESSION_KEY.fullmatch(key)) and isinstance(raw[key], list)
    )
    for number in sessions:
        for item in raw[f"session_{number}"]:
            caption = item.get("blip_caption")
            turns.append(
                Turn(
                    dia_id=str(item["dia_id"]),
                    session=number,
                    speaker=str(item["speaker"]),
                    text=render_turn(
                        str(item["speaker"]),
                        str(item.get("clean_text", "")),
                        caption if isinstance(caption, str) and caption else None,
                    ),
                    session_datetime=datetime.strptime(
                        str(item["date_time"]).strip(), _REALTALK_DATETIME
                    ),
                )
            )
    known = [t.dia_id for t in turns]
    questions = []
    for item in raw.get("qa", []):
        if int(item.get("category", 0)) not in _REALTALK_CATEGORIES:
            continue
        resolved, unresolved = normalise_evidence(item.get("evidence", []), known)
        questions.append(
            Question(
                question=str(item["question"]),
                category=int(item["category"]),
                evidence=tuple(resolved),
                unresolved_evidence=tuple(unresolved),
                answer=str(item.get("answer", "")),
            )
        )
    return Haystack(haystack_id, tuple(turns), tuple(questions))


def _load_realtalk(folder: Path) -> Dataset:
    files = sorted(folder.glob("Chat_*.json"), key=lambda p: int(p.name.split("_")[1]))
    if not files:
        raise _missing("realtalk", folder)
    haystacks = []
    for path in files:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{path} is not valid JSON: {exc}") from exc
        haystacks.append(_realtalk_haystack(path.stem, raw))
    return Dataset("realtalk", tuple(haystacks), _REALTALK_CATEGORIES)


_SPEAKER_TAG = re.compile(r"^<([^>]+)>:\s*")


def _json_lines(path: Path) -> list[Any]:
    decoder = json.JSONDecoder()
    text = path.read_text(encoding="utf-8")
    items: list[Any] = []
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return items
        item, position = decoder.raw_decode(text, position)
        items.append(item)


def madial_query(lines: Sequence[str], test_turn: int) -> str:
    """The dialogue before the turn to be generated, one ``"Speaker: text"`` line per turn."""
    shown = []
    for line in lines[:test_turn]:
        line = line.strip()
        if not line or line in ("<BOD>", "<EOD>"):
            continue
        shown.append(_SPEAKER_TAG.sub(lambda m: f"{m[1]}: ", line).replace('"', ""))
    return "\n".join(shown)


def _load_madial(folder: Path) -> Dataset:
    dialogues_path = folder / "MADial-Bench-en-dialogue.json"
    memories_path = folder / "MADial-Bench-en-memory.json"
    if not dialogues_path.is_file() or not memories_path.is_file():
        raise _missing("madial-bench", folder)
    turns: list[Turn] = []
    for entry in _json_lines(memories_path):
        for memory_id, memory in entry.items():
            turns.append(
                Turn(
                    dia_id=str(memory_id),
                    session=len(turns) + 1,  # every archived memory is its own episode
                    speaker="",
                    text=str(memory["event"]),
                    session_datetime=datetime.strptime(str(memory["time"]), "%Y-%m-%d"),
                )
            )
    known = {t.dia_id for t in turns}
    questions = []
    for dialogue in _json_lines(dialogues_path):
        evidence = tuple(str(i) for i in dialogue.get("relevant-id", []) if str(i) in known)
        test_turns = dialogue.get("test-turn") or []
        if not test_turns:
            continue
        questions.append(
            Question(
                question=madial_query(dialogue["dialogue"], int(test_turns[0])),
                category=1,
                evidence=evidence,
            )
        )
    haystack = Haystack("archive", tuple(turns), tuple(questions))
    return Dataset("madial-bench", (haystack,), {1: "memory recall"})


# BEAM's probing questions that name evidence turns (abstention names none).
BEAM_CATEGORIES = {
    1: "information_extraction",
    2: "multi_session_reasoning",
    3: "knowledge_update",
    4: "temporal_reasoning",
    5: "event_ordering",
    6: "contradiction_resolution",
    7: "preference_following",
    8: "instruction_following",
    9: "summarization",
}
_BEAM_MARKER = re.compile(r"\s*->->\s*\d+\s*,\s*\d+\s*$")  # "... ->-> 1,1"
_BEAM_DATE = "%B-%d-%Y"  # "March-15-2024"
_BEAM_START = datetime(2024, 1, 1, 9, 0)


def _beam_dates(chat: Sequence[Mapping[str, Any]]) -> list[datetime]:
    """Each batch's date: its first time anchor (the previous batch's + 3 weeks if none)."""
    dates: list[datetime] = []
    for batch in chat:
        anchor = next(
            (
                str(turn["time_anchor"])
                for session in batch["turns"]
                for turn in session
                if turn.get("time_anchor")
            ),
            None,
        )
        if anchor is not None:
            dates.append(datetime.strptime(anchor, _BEAM_DATE).replace(hour=9))
        else:
            dates.append(dates[-1] + timedelta(weeks=3) if dates else _BEAM_START)
    return dates


def _beam_haystack(haystack_id: str, chat: Sequence[Mapping[str, Any]], probing: Any) -> Haystack:
    turns: list[Turn] = []
    dates = _beam_dates(chat)
    number = 0
    for position, batch in enumerate(chat):
        sessions = batch["turns"]
        start = dates[position]
        end = dates[position + 1] if position + 1 < len(dates) else start + timedelta(weeks=3)
        step = max(end - start, timedelta(days=1)) / max(len(sessions), 1)
        for index, session in enumerate(sessions):
            number += 1
            when = start + index * step
            for offset, turn in enumerate(session):
                content = _BEAM_MARKER.sub("", str(turn["content"]))
                turns.append(
                    Turn(
                        dia_id=str(turn["id"]),
                        session=number,
                        speaker=str(turn["role"]),
                        text=f"{turn['role']}: {content}",
                        session_datetime=when + timedelta(minutes=offset),
                    )
                )
    known = {t.dia_id for t in turns}
    questions = []
    for category, name in BEAM_CATEGORIES.items():
        for item in probing.get(name, []):
            ids = item.get("source_chat_ids") or []
            flat = ids if isinstance(ids, list) else [i for v in ids.values() for i in v]
            evidence = tuple(dict.fromkeys(str(i) for i in flat if str(i) in known))
            questions.append(
                Question(
                    question=str(item["question"]),
                    category=category,
                    evidence=evidence,
                    answer=str(item.get("answer", "")),
                )
            )
    return Haystack(haystack_id, tuple(turns), tuple(questions))


def _load_beam(folder: Path) -> Dataset:
    root = folder / "chats" / "100K"
    chats = sorted(
        (p for p in root.glob("*") if p.name.isdigit() and (p / "chat.json").is_file()),
        key=lambda p: int(p.name),
    ) if root.is_dir() else []  # fmt: skip
    if not chats:
        raise _missing("beam", folder)
    haystacks = []
    for chat_dir in chats:
        questions_file = chat_dir / "probing_questions" / "probing_questions.json"
        if not questions_file.is_file():
            continue
        chat = json.loads((chat_dir / "chat.json").read_text(encoding="utf-8"))
        probing = json.loads(questions_file.read_text(encoding="utf-8"))
        haystacks.append(_beam_haystack(chat_dir.name, chat, probing))
    return Dataset("beam", tuple(haystacks), BEAM_CATEGORIES)


def first_haystacks(dataset: Dataset, count: int | None) -> Dataset:
    """The dataset cut to its first ``count`` haystacks (all when None)."""
    if count is None or count >= len(dataset.haystacks):
        return dataset
    if count <= 0:
        raise InvalidInputError(f"a haystack limit must be positive, got {count}")
    return Dataset(dataset.name, dataset.haystacks[:count], dataset.category_names)


def parse_limits(raw: str | None) -> dict[str, int]:
    """``"realtalk=4,locomo=2"`` -> ``{"realtalk": 4, "locomo": 2}``."""
    limits: dict[str, int] = {}
    for part in (raw or "").split(","):
        if not part.strip():
            continue
        name, _, value = part.partition("=")
        if name.strip() not in DATASETS or not value.strip().isdigit() or int(value) <= 0:
            raise InvalidInputError(
                f"--haystacks takes dataset=N pairs with N > 0, e.g. realtalk=4; got {part!r}"
            )
        limits[name.strip()] = int(value)
    return limits
