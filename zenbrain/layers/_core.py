"""Core memory: pinned, labelled blocks (the Letta/MemGPT pattern) that never decay."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["MAX_LABEL_LENGTH", "derive_label", "validate_label"]

MAX_LABEL_LENGTH = 100
_NON_LABEL = re.compile(r"[^\w -]+", re.UNICODE)


def _fnv1a32(text: str) -> str:
    value = 0x811C9DC5
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{value:08x}"


def derive_label(content: str) -> str:
    """A readable, collision-resistant label for core content stored without one: the first
    40 characters (letters of every script kept, so "Über" stays "Über") plus a content hash,
    so the same content always maps to the same block."""
    normal = unicodedata.normalize("NFC", content)
    readable = " ".join(_NON_LABEL.sub(" ", normal).split())[:40].strip()
    return f"{readable} #{_fnv1a32(normal)}" if readable else f"#{_fnv1a32(normal)}"


def validate_label(label: object) -> str:
    from zenbrain._validation import check_storable, shown
    from zenbrain.errors import InvalidInputError

    if not isinstance(label, str) or not label.strip():
        raise InvalidInputError(
            f"a core block label must be a non-empty string, got {shown(label)}"
        )
    label = check_storable(label.strip(), "the core block label")
    if len(label) > MAX_LABEL_LENGTH:
        raise InvalidInputError(
            f"a core block label may have at most {MAX_LABEL_LENGTH} characters, got {len(label)}"
        )
    return label
