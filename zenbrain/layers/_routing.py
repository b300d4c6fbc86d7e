"""Where ``store()`` puts a memory when the caller does not name a layer.

First match wins: steps given or step-like content → procedural; emotional weight above 0.5 →
episodic; confidence above 0.9 → core; everything else → semantic.

Step-like content (:func:`is_step_like`) reads as instructions, by its title or its lines:

- a marker in its first line: it starts with "How to", "Step 1", "Anleitung", "So geht",
  or names "steps:", "workflow:", "recipe:", "instructions:", "procedure:", "Schritte:",
  "step-by-step", or it names steps and ends with a colon ("Steps to renew the permit:");
- or two or more step lines (numbered, bulleted, "Step 2:"), at least half of its lines,
  unless the list offers options rather than steps: an answer introduced as "Here are a few
  tips" or "Some ideas", or items that start with a bold heading ("1. **Louvre**: …"), as
  an assistant lists restaurants or tips.

A marker further down a long message ("I followed the recipe: …" in the fifth line) or a
list of recommendations is a statement, so it is filed as a fact or an episode:
docs/benchmarks.md, "Where routing files the benchmark datasets", shows what the rule
files where on every dataset.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from zenbrain.layers._episodic import is_episode

__all__ = [
    "CORE_CONFIDENCE_THRESHOLD",
    "extract_steps",
    "is_step_like",
    "route",
]

CORE_CONFIDENCE_THRESHOLD = 0.9

# Markers that make a whole text a procedure, English and German.
_PROCEDURE_MARKERS = re.compile(
    r"^\s*how\s+to\b|^\s*step\s+\d|\bsteps?\s*:|\bstep-by-step\b|\bworkflow\s*:|\brecipe\s*:"
    r"|\bprocedure\s*:|\binstructions\s*:|^\s*anleitung\b|\bschritte\s*:|^\s*so\s+geht",
    re.IGNORECASE | re.MULTILINE,
)
# The same markers split by where they may occur, for a fast check (see _has_marker): those
# anchored at a line start, and those anywhere (every match of which contains one of the
# words _mentions_inline_marker_word looks for).
_LINE_START_MARKERS = re.compile(
    r"^\s*how\s+to\b|^\s*step\s+\d|^\s*anleitung\b|^\s*so\s+geht",
    re.IGNORECASE | re.MULTILINE,
)
_INLINE_MARKERS = re.compile(
    r"\bsteps?\s*:|\bstep-by-step\b|\bworkflow\s*:|\brecipe\s*:|\bprocedure\s*:"
    r"|\binstructions\s*:|\bschritte\s*:",
    re.IGNORECASE,
)
# The four non-ASCII letters IGNORECASE also matches to ASCII ones ("ſtep", "ınstructions").
_ASCII_CASE_TWINS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
_STEP_LINE = re.compile(
    r"^\s*(?:\d+\s*[.):]\s*|[-*•]\s+|step\s+\d+\s*[:.]\s*|schritt\s+\d+\s*[:.]\s*)", re.I
)


def is_step_like(content: str) -> bool:
    """True when ``content`` reads as instructions: a marker in its first line, or step
    lines that list steps rather than options (see the module's docstring)."""
    return _has_marker(content) or _has_step_lines(content)


# An introduction that offers options, not steps: "Here are a few tips", "Some great
# restaurants:", "Hier sind ein paar Ideen".
_OFFERS_OPTIONS = re.compile(
    r"\bhere\s+(?:are|is)\b|\bhere's\b|\bhier\s+(?:sind|ist)\b"
    r"|(?:^|[.!?:]\s+)(?:some|a\s+few|several|these|my\s+favou?rite|top\s+\d+|einige|ein\s+paar)\b"
    r"|\b(?:tips|ideas|options|suggestions|recommendations|tipps|ideen|vorschläge|empfehlungen)\b",
    re.IGNORECASE,
)
_BOLD_ITEM = re.compile(r"^\s*(?:\d+\s*[.):]\s*|[-*•]\s+)\*\*")


def _has_step_lines(content: str) -> bool:
    """Whether two or more lines of ``content``, at least half of them, are step lines,
    and the list does not offer options (none in a one-line text)."""
    lines = [line for line in content.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    steps = [line for line in lines if _STEP_LINE.match(line)]
    if len(steps) < 2 or 2 * len(steps) < len(lines):
        return False
    if 2 * sum(1 for line in steps if _BOLD_ITEM.match(line)) >= len(steps):
        return False
    introduction = " ".join(line for line in lines if not _STEP_LINE.match(line))
    return not _OFFERS_OPTIONS.search(introduction)


def _has_marker(content: str) -> bool:
    """Whether the first line holds a procedure marker: one of the anchored markers at its
    start, an inline marker anywhere in it, or a word naming steps and a closing colon."""
    first = content.lstrip().split("\n", 1)[0]
    lowered = first.lower() if first.isascii() else first.translate(_ASCII_CASE_TWINS).lower()
    if _LINE_START_MARKERS.match(first):
        return True
    if _mentions_inline_marker_word(lowered) and _INLINE_MARKERS.search(first):
        return True
    return lowered.rstrip().endswith(":") and bool(_NAMES_STEPS.search(lowered))


_NAMES_STEPS = re.compile(r"\b(?:steps?|instructions|anleitung|schritte)\b")


def _mentions_inline_marker_word(lowered: str) -> bool:
    # Plain substring tests: faster than a regex or a loop over the words.
    return (
        "step" in lowered
        or "workflow" in lowered
        or "recipe" in lowered
        or "procedure" in lowered
        or "instructions" in lowered
        or "schritte" in lowered
    )


def extract_steps(content: str) -> list[str]:
    """The steps of a step-like text: numbered/bulleted lines with their prefix removed, or,
    when no line carries a prefix, every non-empty line after the first (the trigger)."""
    lines = [line.strip() for line in content.splitlines() if line.strip()]
    prefixed = [_STEP_LINE.sub("", line).strip() for line in lines if _STEP_LINE.match(line)]
    if prefixed:
        return [step for step in prefixed if step]
    return lines[1:] if len(lines) > 1 else lines


def route(
    content: str,
    *,
    emotional_weight: float,
    confidence: float | None,
    steps: Sequence[str] | None,
) -> str:
    """The layer for ``content``: ``procedural``, ``episodic``, ``core`` or ``semantic``."""
    if steps or is_step_like(content):
        return "procedural"
    if is_episode(emotional_weight):
        return "episodic"
    if confidence is not None and confidence > CORE_CONFIDENCE_THRESHOLD:
        return "core"
    return "semantic"
