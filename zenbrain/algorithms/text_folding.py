"""Text normalisation shared by the lexicon-based algorithms.

Folding rules, applied in this order:

1. lower-case (``str.lower``, so "ẞ" becomes "ß"),
2. German transliteration: ä -> ae, ö -> oe, ü -> ue, ß -> ss,
3. accent stripping (Unicode NFKD, combining marks dropped): "café" -> "cafe".

Because transliteration runs before accent stripping, "glücklich" and "gluecklich" fold to
the same token, and so do "Förde" and "Foerde". Tokens are maximal runs of letters and
digits (``[^\\W_]+``), so non-Latin scripts survive as tokens instead of vanishing.
"""

from __future__ import annotations

from zenbrain.errors import InvalidInputError
from zenbrain.text import fold, words

__all__ = ["fold_text", "tokenize"]


def fold_text(text: str) -> str:
    """Lower-case ``text``, transliterate German umlauts and strip accents
    (the folding of :mod:`zenbrain.text`, with a type check)."""
    if not isinstance(text, str):
        raise InvalidInputError(f"text must be a str, got {type(text).__name__}")
    return fold(text)


def tokenize(text: str, min_length: int = 1) -> list[str]:
    """Folded tokens of ``text`` (see :func:`fold_text`) at least ``min_length`` long,
    stopwords kept (the lexicons contain some)."""
    if min_length < 1:
        raise InvalidInputError(f"min_length must be >= 1, got {min_length}")
    fold_text(text)  # type check
    return [tok for tok in words(text) if len(tok) >= min_length]
