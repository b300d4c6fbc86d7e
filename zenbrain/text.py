"""Text folding and tokenising: the one place that decides what a "word" is.

Folding makes "Kieler Förde", "kieler foerde" and "KIELER FORDE"-with-accents meet:
case folded, German umlauts transliterated (ä→ae, ö→oe, ü→ue, ß→ss), remaining accents
stripped. Tokens are runs of letters and digits after folding, at least two characters
long, minus a small English and German stopword list (folded the same way, so "für" and
"fuer" are both stopwords: the original missed that). Letters of other scripts are kept, so
"Привет" or "東京" are words too, not silently dropped. Index terms are then lightly
stemmed (:func:`stem`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

__all__ = [
    "STOPWORDS",
    "TEXT_VERSION",
    "content_tokens",
    "fold",
    "stem",
    "terms_of_words",
    "tokenize",
    "words",
]

# Bump when folding, stopwords or stemming change: stored index terms depend on them.
TEXT_VERSION = 1

_TRANSLITERATION = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "æ": "ae", "ø": "oe"})
_WORD = re.compile(r"[^\W_]+")
# ASCII text folds to its lower case and its words are the runs of ASCII letters and digits,
# so one bytes.translate (lower-case letters, blank all else) and a split find them.
_ASCII_WORD_BYTES = bytes(
    ord(char.lower() if char.isascii() and char.isalnum() else " ") for char in map(chr, range(256))
)

_STOPWORDS_RAW = """
der die das den dem des ein eine einen einem einer eines und oder aber ist sind war waren wird
werden hat haben hatte von vom zum zur mit auf aus bei für nicht auch als wie was wer wo sich es
im in an am zu ich du er sie wir ihr mich mir dich dir uns euch sein seine ihre so noch nur dass
the an and or but is are was were be been being of to in on at for with from by as it its this
that these those what which who whom how not do does did has have had he she they them his her
their our your you we me my i am will would can could should shall may might must there here
than then so if into about over also just very too any some all no yes up out
"""


def fold(text: str) -> str:
    """Lower-case ``text``, transliterate German umlauts and strip accents."""
    if text.isascii():  # no umlaut or accent; casefold and lower agree on ASCII
        return text.lower()
    lowered = text.casefold().translate(_TRANSLITERATION)
    if lowered.isascii():
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


STOPWORDS: frozenset[str] = frozenset(fold(w) for w in _STOPWORDS_RAW.split())


def words(text: str) -> list[str]:
    """Every folded word of ``text`` in order, stopwords included."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_WORD_BYTES).decode("ascii").split()
    return _WORD.findall(fold(text))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English suffix stripper, so "paintings", "painted" and "painting" meet.

    Plural -s/-es/-ies, then -ing/-ed, a doubled final consonant and a final -e are removed
    from ASCII words longer than three letters. Deliberately conservative: it never changes
    short words or words of other scripts, and query and memory are stemmed alike, so an
    imperfect stem still matches itself. Chosen against no stemming (which loses on every
    dataset) and Snowball English (which does not win on every one): docs/benchmarks.md,
    "Recall: how the defaults were chosen", table "Lexical score".
    """
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Index terms of ``text`` in order: folded words, stopwords and one-character words
    removed, the rest stemmed (:func:`stem`)."""
    return terms_of_words(words(text))


def terms_of_words(folded: Sequence[str]) -> list[str]:
    """:func:`tokenize` of a text whose :func:`words` the caller has already."""
    return list(filter(None, map(_term, folded)))  # no Python-level loop: runs per store


@lru_cache(maxsize=65536)
def _term(word: str) -> str:
    """A folded word's index term, or "" for a word the index leaves out."""
    return stem(word) if len(word) >= 2 and word not in STOPWORDS else ""


@lru_cache(maxsize=4096)
def content_tokens(text: str) -> tuple[str, ...]:
    """Cached :func:`tokenize` for texts that are ranked again and again."""
    return tuple(tokenize(text))
