"""The cross-context layer's rules: which names a text mentions and when two names of
different contexts are the same thing. The database side (entities, mentions and links per
namespace, link following on recall) is :mod:`zenbrain.stages._cross_context`.

Linking. Two entities of two different configured contexts are linked when the
word-Jaccard similarity of their keys (:func:`name_similarity`) is at least
:data:`LINK_THRESHOLD` (0.7); a recalled memory then brings along the memories that mention
a linked entity, scored ``FOLLOW_WEIGHT * similarity * the memory's score``. An entity of a
memory without a context is filed under :data:`UNSCOPED`.

Entity extraction: people, places, organisations and projects in English and German text.
A deliberately small heuristic, no model: an entity is a run of capitalised words.

- Runs: consecutive capitalised words separated only by spaces; a lower-case particle
  (von, van, de, der, of, ...) may sit inside a run ("Ludwig van Beethoven", "Bank of
  America"). A possessive ``'s`` is dropped; titles (Dr, Mr, Frau, Herr, ...) and common
  capitalised non-names (pronouns, articles, weekdays, months, "Today", "Heute", ...) are
  trimmed from both ends of a run.
- Sentence openings: a one-word run that opens a sentence (or follows a colon) is taken
  only when the same word also appears capitalised inside a sentence of the text, because
  English capitalises every first word.
- German capitalises every noun, so in a text that reads as German (more German than
  English function words) a one-word run inside a sentence counts only when it does not
  follow an article, determiner or inflected adjective ("der Hund", "einen schönen Tag")
  and does not end in a typical noun suffix (-ung, -heit, -keit, -schaft, -chen, ...).
  Multi-word runs ("Kieler Förde", "Anna Schmidt") always count. This will still take
  some plain German nouns for names (e.g. after a preposition); the cross-context layer
  tolerates that, it only links equal or near-equal names. After an article, a run joined by
  a particle is cut at the particle ("der Hund von Herrn Müller" gives "Müller").

Each entity has a display ``name`` (its first spelling) and a ``key``: the folded words
(:func:`zenbrain.text.fold`) joined by single spaces, so "Kieler Förde" and
"KIELER FOERDE" are the same entity.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from zenbrain.text import fold

__all__ = [
    "FOLLOW_WEIGHT",
    "LINK_THRESHOLD",
    "MAX_ENTITIES_PER_TEXT",
    "UNSCOPED",
    "Entity",
    "entity_key",
    "extract_entities",
    "key_similarity",
    "key_words",
    "name_similarity",
]

LINK_THRESHOLD: Final = 0.7
FOLLOW_WEIGHT: Final = 0.5
UNSCOPED: Final = ""
MAX_ENTITIES_PER_TEXT: Final = 50
MAX_NAME_LENGTH: Final = 200

_SENTENCE_BREAK = re.compile(r"(?<=[.!?…:;])\s+|\n+|[\"“”„«»()\[\]]")
_WORD = re.compile(r"[^\W\d_][\w'’\-]*")
_WORD_SPLIT = re.compile(r"([^\W\d_][\w'’\-]*)")  # _WORD, captured: split keeps the words
# The same on ASCII text (which has no ’), where an ASCII-only pattern runs faster.
_ASCII_WORD_SPLIT = re.compile(r"([A-Za-z][\w'\-]*)", re.ASCII)
# In ASCII text read backwards: a capitalised word with an earlier word of its sentence
# before it. That is a capital opening a word (after digits, _, ' or - and a character no word
# contains), then no letter and no _SENTENCE_BREAK (whitespace right after .!?:; is one),
# then a letter. Backwards, so that a match can only start at a capital: the regex engine
# skips straight to them.
_ASCII_INNER_CAPITAL_BACKWARDS = re.compile(
    r"[A-Z][\d_'\-]*(?![\w'\-])(?:[^A-Za-z\s\"()\[\]]|[^\S\n](?![.!?:;]))*[A-Za-z]"
)
_KEY_WORD = re.compile(r"[^\W_]+")
_POSSESSIVE = re.compile(r"['’]s?$")


# Words repeat across texts (names, titles, particles): fold each spelling once.
_fold_word = lru_cache(maxsize=65536)(fold)


def _split(words: str) -> list[str]:
    return words.split()


_PARTICLES: Final = frozenset(
    _split("von van vom zu de der den del della di da du dos das la le of and und y bin al ter ten")
)
_TITLES: Final = frozenset(_split("mr mrs ms miss dr prof sir madam herr herrn frau fr hr"))
_NOT_NAMES: Final = frozenset(
    fold(word)
    for word in _split(
        """
    i i'm i've i'll i'd me my we our you your he she it they them his her their this that these
    those there here the a an and or but if so then when what where why how who which yes no
    not ok okay hi hey hello thanks thank please well oh also just maybe today tomorrow
    yesterday tonight now later monday tuesday wednesday thursday friday saturday sunday
    january february march april may june july august september october november december
    der die das den dem des ein eine einen einem einer eines und oder aber wenn dann was wer
    wo warum wie ich du er sie es wir ihr mein meine dein deine sein seine unser unsere euer
    ja nein nicht danke bitte hallo heute morgen gestern jetzt später spaeter montag dienstag
    mittwoch donnerstag freitag samstag sonntag januar februar märz maerz mai juni juli
    oktober dezember ihnen uns mir mich dich dir
    """
    )
)
_GERMAN_MARKERS: Final = frozenset(
    _split(
        """der die das den dem des ein eine einen einem und ist sind war nicht mit auf für fuer
        ich wir sie ihr auch sich noch wie bei nach zum zur vom im am"""
    )
)
_ENGLISH_MARKERS: Final = frozenset(
    _split(
        """the a an and is are was were not with on for i we you it also to of at by from
        this that have has had"""
    )
)
_GERMAN_DETERMINERS: Final = frozenset(
    fold(word)
    for word in _split(
        """
    der die das den dem des ein eine einen einem einer eines kein keine keinen keinem keiner
    mein meine meinen meinem meiner dein deine deinen sein seine seinen seinem ihr ihre ihren
    ihrem unser unsere unseren euer eure dieser diese dieses diesen diesem jeder jede jedes
    jeden alle allen viele vielen einige manche welche welcher im am zum zur vom beim ins ans
    aufs
    """
    )
)
_GERMAN_ADJECTIVE_ENDINGS: Final = ("e", "en", "er", "es", "em")
_GERMAN_NOUN_SUFFIXES: Final = (
    "ung", "ungen", "heit", "keit", "schaft", "chen", "lein", "tion", "taet", "ismus", "nis",
    "tum", "ling", "ment", "erei", "ei",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Entity:
    name: str
    key: str


def key_words(key: str) -> frozenset[str]:
    """The words of an entity key, for word-Jaccard comparisons."""
    return frozenset(key.split())


def entity_key(name: str) -> str:
    """The folded, space-joined words of ``name``."""
    return " ".join(_KEY_WORD.findall(fold(name)))


_cached_entity_key = lru_cache(maxsize=65536)(entity_key)  # names recur across texts


def key_similarity(left: frozenset[str], right: frozenset[str]) -> float:
    """Word-Jaccard similarity of two entity keys' words (0 when either has none)."""
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def name_similarity(a: str, b: str) -> float:
    """Word-Jaccard similarity of two entity names (folded, so case and umlauts agree)."""
    return key_similarity(key_words(entity_key(a)), key_words(entity_key(b)))


def _is_capitalised(word: str) -> bool:
    return word[0].isupper()


def _looks_german(text: str, words: Sequence[str] | None = None) -> bool:
    """Whether ``text`` has more German than English function words. ``words``: its
    ``_WORD`` matches, if the caller has them; they are reused for ASCII text, whose folding
    only lower-cases them."""
    if words is not None and text.isascii():
        folded = list(map(str.lower, words))
    else:
        folded = _WORD.findall(fold(text))  # fold once: folding is per character anyway
    german = sum(map(_GERMAN_MARKERS.__contains__, folded))
    english = sum(map(_ENGLISH_MARKERS.__contains__, folded))
    return german > english


@lru_cache(maxsize=65536)
def _clean(word: str) -> str:
    return _POSSESSIVE.sub("", word).strip("-'’")


# What lies between two neighbouring words of a text: only spaces (a run of names may go
# on), something else inside one sentence (a run ends), or a sentence break.
_JOINS, _SEPARATES, _BREAKS = 0, 1, 2
_CACHED_GAP_LENGTH: Final = 8  # nearly every gap is this short: " ", ", ", "! ", " - "


def _gap_kind(gap: str) -> int:
    return _cached_gap_kind(gap) if len(gap) <= _CACHED_GAP_LENGTH else _classify_gap(gap)


def _classify_gap(gap: str) -> int:
    # A break inside a gap is a break of the whole text: break characters are never part of
    # a word, and the character before a gap, a word's last, cannot open a break.
    if _SENTENCE_BREAK.search(gap):
        return _BREAKS
    return _SEPARATES if gap.strip() else _JOINS


_cached_gap_kind = lru_cache(maxsize=1024)(_classify_gap)


def _runs(words: list[str], gaps: list[str]) -> list[tuple[list[str], bool, str | None]]:
    """Capitalised runs of a text with these words and gaps (``gaps[i]`` lies between
    ``words[i]`` and ``words[i + 1]``), in order: (words, whether the run opens a sentence,
    the word before it in its sentence).

    Sentences are read from the gaps, so the text is split into words only once.
    """
    count = len(words)
    runs: list[tuple[list[str], bool, str | None]] = []
    end = 0  # the words before ``end`` belong to a run already
    for start in [i for i, word in enumerate(words) if word[0].isupper()]:
        if start < end:
            continue
        j = start + 1
        # A single space, the commonest gap by far, is tested without a call.
        while j < count and (gaps[j - 1] == " " or _gap_kind(gaps[j - 1]) == _JOINS):
            if words[j][0].isupper():
                j += 1
                continue
            # Particles ("von der") join the run only when a capitalised word follows them.
            k = j
            while k + 1 < count and words[k].lower() in _PARTICLES and _gap_kind(gaps[k]) == _JOINS:
                k += 1
            if k > j and words[k][0].isupper():
                j = k + 1
                continue
            break
        opening = start == 0 or _gap_kind(gaps[start - 1]) == _BREAKS
        runs.append((words[start:j], opening, None if opening else words[start - 1]))
        end = j
    return runs


def _trim(words: list[str]) -> list[str]:
    cleaned = [_clean(w) for w in words]
    while cleaned and (
        _fold_word(cleaned[0]) in _NOT_NAMES
        or _fold_word(cleaned[0]) in _TITLES
        or cleaned[0].lower() in _PARTICLES
    ):
        cleaned.pop(0)
    while cleaned and (_fold_word(cleaned[-1]) in _NOT_NAMES or cleaned[-1].lower() in _PARTICLES):
        cleaned.pop()
    return [w for w in cleaned if w]


def _german_noun(word: str, previous: str | None) -> bool:
    folded = _fold_word(word)
    if folded.endswith(_GERMAN_NOUN_SUFFIXES):
        return True
    if previous is None:
        return False
    before = _fold_word(previous)
    if before in _GERMAN_DETERMINERS:
        return True
    return (
        previous.islower()
        and len(before) > 3
        and before.endswith(_GERMAN_ADJECTIVE_ENDINGS)
        and before not in _PARTICLES
    )


def extract_entities(text: str) -> list[Entity]:
    """Entity names in ``text``, first occurrence first, one per key."""
    if text.islower():  # no upper-case letter anywhere: no capitalised run
        return []
    if text.isascii() and not _ASCII_INNER_CAPITAL_BACKWARDS.search(text[::-1]):
        return []  # only lone sentence openers (the common case): none is a name, see below
    # One split gives the words and what lies between them: [gap, word, gap, ..., word, gap].
    parts = (_ASCII_WORD_SPLIT if text.isascii() else _WORD_SPLIT).split(text)
    words = parts[1::2]
    candidates = _runs(words, parts[2::2])
    inner_words = {
        _fold_word(_clean(word)) for run, opening, _ in candidates if not opening for word in run
    }
    if not inner_words and all(len(run) == 1 for run, _, _ in candidates):
        return []  # only lone sentence openers (the common case): none is a name, see below
    # Whether the text reads as German, worked out only when a candidate depends on it.
    german_state: list[bool] = []

    def german() -> bool:
        if not german_state:
            german_state.append(_looks_german(text, words))
        return german_state[0]

    found: dict[str, Entity] = {}
    for run, opening, previous in candidates:
        if opening and len(run) == 1 and _fold_word(_clean(run[0])) not in inner_words:
            # A lone sentence opener not seen capitalised inside a sentence: never a name
            # (the most common candidate; the checks below would drop it too).
            continue
        if len(run) > 1 and _fold_word(run[0]) in _GERMAN_DETERMINERS and german():
            previous, run, opening = run[0], run[1:], False
        if previous is not None and _fold_word(previous) in _GERMAN_DETERMINERS and german():
            # "der Hund von Herrn Müller": a noun after an article, then the name.
            particles = [i for i, w in enumerate(run) if w.lower() in _PARTICLES]
            if particles:
                previous, run, opening = run[particles[-1]], run[particles[-1] + 1 :], False
        kept = _trim(run)
        if not kept:
            continue
        if len(kept) == 1:
            word = kept[0]
            if len(word) < 2:
                continue
            position = next(
                i for i, w in enumerate(run) if _fold_word(_clean(w)) == _fold_word(word)
            )
            before = _clean(run[position - 1]) if position > 0 else previous
            if opening and position == 0 and _fold_word(word) not in inner_words:
                continue
            if german() and _german_noun(word, before):
                continue
        name = " ".join(kept)[:MAX_NAME_LENGTH]
        key = _cached_entity_key(name)
        if key and key not in found:
            found[key] = Entity(name=name, key=key)
            if len(found) >= MAX_ENTITIES_PER_TEXT:
                break
    return list(found.values())
