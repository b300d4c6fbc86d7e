"""Where ``store()`` puts a memory when the caller does not name a layer.

First match wins: steps given or step-like content → procedural; emotional weight above 0.5 →
episodic; confidence above 0.9 → core; everything else → semantic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from zenbrain.layers.episodic import is_episode

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
    """True when ``content`` reads as instructions: a marker, or two or more step lines."""
    return _has_marker(content) or _has_step_lines(content)


def _has_step_lines(content: str) -> bool:
    """Whether two or more lines of ``content`` are step lines (none in a one-line text)."""
    lines = content.splitlines()
    return len(lines) >= 2 and sum(1 for line in lines if _STEP_LINE.match(line)) >= 2


def _has_marker(content: str) -> bool:
    """``_PROCEDURE_MARKERS.search(content)``, faster: an inline marker's words must be in
    the text before its pattern is tried, and the anchored markers are tried only where a
    line starts (the only places their ``^`` matches)."""
    lowered = content.lower() if content.isascii() else content.translate(_ASCII_CASE_TWINS).lower()
    if _mentions_inline_marker_word(lowered) and _INLINE_MARKERS.search(content):
        return True
    if _LINE_START_MARKERS.match(content):
        return True
    newline = content.find("\n")
    while newline != -1:
        if _LINE_START_MARKERS.match(content, newline + 1):
            return True
        newline = content.find("\n", newline + 1)
    return False


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
