# ruff: noqa: E501  (the rule patterns are data: one pattern a line reads best)
"""Which sentences state which attribute: the rules the supersession reader
(:mod:`zenbrain.layers._supersession`) applies. Per attribute (residence, employer, diet,
relationship, occupation, count, preference, favourite, plan, named), English and German
patterns with the vocabulary they match (diets, statuses, number words, ordinals), and the
word gates that decide cheaply which rules a text is read with: most texts hold none of
their words and are never matched against a pattern. Data and the gating over it; what a
match means (a claim, its key and value) is the reader's."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from zenbrain.text import fold, words

__all__ = [
    "DIETS",
    "GATE_WORDS",
    "MARKER_WORDS",
    "NUMBER_WORDS",
    "ORDINALS",
    "PREFERENCE_ONLY",
    "RULE_BASES",
    "STATUSES",
    "SUPERSEDING_GATE_WORDS",
    "TURNED_WORDS",
    "gated_rules",
    "has_digit",
]

# ----------------------------------------------------------------------------- vocabulary
_NAME = r"[A-ZÄÖÜ][\w'&.-]*(?:\s+(?:(?:de|von|van|del|am|an|upon|on)\s+)?[A-ZÄÖÜ][\w'&.-]*)*"
NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a dozen": 12,
    "twenty": 20,
    "ein": 1,
    "eine": 1,
    "einen": 1,
    "zwei": 2,
    "drei": 3,
    "vier": 4,
    "fuenf": 5,
    "funf": 5,
    "sechs": 6,
    "sieben": 7,
    "acht": 8,
    "neun": 9,
    "zehn": 10,
    "elf": 11,
    "zwoelf": 12,
}
ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "erste": 1,
    "zweite": 2,
    "dritte": 3,
    "vierte": 4,
    "fuenfte": 5,
    "sechste": 6,
    "siebte": 7,
    "achte": 8,
    "neunte": 9,
    "zehnte": 10,
}
_DATE = (
    r"(?:(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Januar|Februar|März|Juni|Juli|Oktober|Dezember)\s+\d{1,2}(?:st|nd|rd|th)?"
    r"(?:,?\s+\d{4})?|\d{1,2}\.\s*(?:Januar|Februar|März|April|Mai|Juni|Juli|August|"
    r"September|Oktober|November|Dezember)(?:\s+\d{4})?)"
)
_NUM = r"(?:\d[\d,.]*|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r"|fünf|zwölf)"
_ORD = r"(?:\d+(?:st|nd|rd|th|\.)|" + "|".join(ORDINALS) + r"|fünfte)"
DIETS = {
    "vegan": "vegan",
    "veganer": "vegan",
    "veganerin": "vegan",
    "vegetarian": "vegetarian",
    "vegetarier": "vegetarian",
    "vegetarierin": "vegetarian",
    "vegetarisch": "vegetarian",
    "pescatarian": "pescatarian",
    "keto": "keto",
    "gluten-free": "gluten-free",
    "glutenfrei": "gluten-free",
    "flexitarian": "flexitarian",
    "flexitarier": "flexitarian",
}
_DIET = r"(?P<v>" + "|".join(sorted(DIETS, key=len, reverse=True)) + r")"
STATUSES = {
    "married": "married",
    "single": "single",
    "engaged": "engaged",
    "divorced": "divorced",
    "separated": "separated",
    "widowed": "widowed",
    "verheiratet": "married",
    "ledig": "single",
    "verlobt": "engaged",
    "geschieden": "divorced",
    "getrennt": "separated",
    "retired": "retired",
    "pensioniert": "retired",
    "in rente": "retired",
    "unemployed": "unemployed",
    "arbeitslos": "unemployed",
    "pregnant": "pregnant",
    "schwanger": "pregnant",
}
_STATUS = r"(?P<v>" + "|".join(sorted(STATUSES, key=len, reverse=True)) + r")"
_ADVERBS = (
    r"(?:(?:now|just|recently|finally|actually|currently|still|already|officially|also|"
    r"jetzt|nun|inzwischen|mittlerweile|seit kurzem|kürzlich|gerade|schon|wieder|noch|"
    r"endlich|offiziell)\s+)*"
)
_I = r"(?:^|(?<=[\s,;:(\"]))(?:I|i)"
_ICH = r"(?:^|(?<=[\s,;:(\"]))(?:[Ii]ch)"
_OBJECT = r"(?P<o>[\w'-]+(?:\s+(?!and\b|but\b|because\b|und\b|aber\b|weil\b)[\w'-]+){0,3})"
_GERMAN_ORDINAL_STEM = re.compile(r"(?:te[nrms]?)$")


def _pattern(source: str) -> re.Pattern[str]:
    return re.compile(source)


# Each rule: attribute, compiled pattern, and how its match becomes (key, value, negated).
_RESIDENCE = [
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?:moved|relocated)\s+(?:back\s+)?(?:(?i:to|into))\s+(?:the\s+)?(?P<v>{_NAME})",
    rf"{_I}(?:'m| am)?\s+{_ADVERBS}(?i:live|living|based|residing)\s+(?i:in)\s+(?P<v>{_NAME})",
    rf"{_I}\s+(?P<n>(?i:don't|do not|no longer))\s+(?i:live)\s+(?i:in)\s+(?P<v>{_NAME})",
    rf"{_ICH}\s+(?:wohne|lebe)\s+{_ADVERBS}(?P<n>nicht mehr\s+)?in\s+(?P<v>{_NAME})",
    rf"{_ICH}\s+bin\s+{_ADVERBS}(?:(?:vor kurzem|letztes jahr|letzten monat)\s+)?nach\s+(?P<v>{_NAME})\s+(?:um)?gezogen",
    rf"{_ICH}\s+ziehe\s+{_ADVERBS}nach\s+(?P<v>{_NAME})",
]
_EMPLOYER = [
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?i:joined|started (?:working |a (?:new )?job )?(?:at|with|for)|got a (?:new )?job (?:at|with))\s+(?P<v>{_NAME})",
    rf"{_I}(?:'m| am)?\s+{_ADVERBS}(?i:work|working|employed)\s+(?i:at|for|with)\s+(?P<v>{_NAME})",
    rf"{_I}\s+(?P<n>(?i:don't|do not|no longer))\s+(?i:work)\s+(?i:at|for)\s+(?P<v>{_NAME})",
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?P<n>(?i:quit|left))\s+(?i:my (?:job|position) at\s+)(?P<v>{_NAME})",
    rf"{_ICH}\s+arbeite\s+{_ADVERBS}(?P<n>nicht mehr\s+)?(?:bei|für|fuer)\s+(?:(?:der|die|dem|den)\s+)?(?P<v>{_NAME})",
    rf"{_ICH}\s+habe\s+{_ADVERBS}bei\s+(?P<v>{_NAME})\s+(?:angefangen|angeheuert)",
]
_DIET_RULES = [
    rf"{_I}(?:'m| am)\s+{_ADVERBS}(?P<n>(?i:no longer|not)\s+)?(?:(?i:a|fully|strictly)\s+)*(?i:{_DIET})\b",
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?i:went|gone|turned|become|became)\s+(?i:{_DIET})\b",
    rf"{_ICH}\s+(?:bin|lebe|esse)\s+{_ADVERBS}(?P<n>kein(?:e|er)?\s+|nicht mehr\s+)?(?:(?i:{_DIET}))\b",
]
_OMNIVORE = [
    rf"{_I}\s+{_ADVERBS}(?:(?i:eat|started eating|am eating|'m eating))\s+(?i:meat)\s+(?i:again)",
    rf"{_ICH}\s+esse\s+{_ADVERBS}(?:wieder\s+)?Fleisch(?:\s+wieder)?",
]
_VEGETARIAN = [
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?i:stopped|quit|gave up)\s+(?i:eating meat|meat)",
    rf"{_ICH}\s+esse\s+{_ADVERBS}(?:kein(?:en)?\s+Fleisch|nicht mehr\s+Fleisch)",
]
_RELATIONSHIP = [
    rf"{_I}(?:'m| am)\s+{_ADVERBS}(?P<n>(?i:no longer|not)\s+)?(?i:{_STATUS})\b",
    rf"{_I}\s+{_ADVERBS}(?i:got)\s+(?i:{_STATUS})\b",
    rf"{_ICH}\s+bin\s+{_ADVERBS}(?P<n>nicht mehr\s+)?(?i:{_STATUS})\b",
]
_OCCUPATION = [
    rf"{_I}\s+{_ADVERBS}(?P<n>(?i:no longer)\s+)?(?i:work)\s+(?i:as)\s+(?:an?\s+)?(?P<v>[a-z][\w-]+(?:\s+[a-z][\w-]+)?)",
    rf"{_ICH}\s+arbeite\s+{_ADVERBS}(?P<n>nicht mehr\s+)?als\s+(?P<v>[\wäöüÄÖÜß-]+)",
]
_COUNT = [
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?i:have|own|attended|completed|adopted|visited|got|have got|now have)\s+(?:(?i:a total of|about|around)\s+)?(?P<v>(?i:{_NUM}))\s+(?P<o>[A-Za-z][\w-]+)",
    rf"(?i:(?:that|this|it|today|yesterday)(?:'s| is| was| will be))\s+(?i:my)\s+(?P<v>(?i:{_ORD}))\s+(?P<o>[A-Za-z][\w-]+)",
    rf"{_ICH}\s+(?:habe|hab|besitze)\s+{_ADVERBS}(?:insgesamt\s+)?(?P<v>(?i:{_NUM}))\s+(?P<o>[A-ZÄÖÜ][\wäöüß-]+)",
    rf"(?:[Dd]as|[Ee]s|[Hh]eute)\s+(?:war|ist)\s+(?:mein|meine)\s+(?P<v>(?i:{_ORD}))\s+(?P<o>[A-ZÄÖÜ][\wäöüß-]+)",
    rf"(?i:the number of)\s+(?P<o>[a-z][\w-]+)\b[^,]{{0,60}}?\b(?i:has|have|is|are)\s+{_ADVERBS}(?:(?i:grown|increased|risen|dropped|decreased|gone up|gone down|reached|changed)\s+)?(?i:to\s+)?(?P<v>\d[\d,.]*)",
]
_PREFERENCE = [
    rf"{_I}\s+{_ADVERBS}(?:(?i:really|absolutely|totally|truly|do)\s+)*(?P<p>(?i:love|like|enjoy|prefer|adore|hate|dislike|detest|can't stand|cannot stand|don't like|do not like|don't enjoy|no longer like|no longer enjoy|stopped liking|stopped enjoying))\s+{_OBJECT}",
    rf"{_ICH}\s+(?P<p>mag|liebe|hasse|genieße|geniesse)\s+(?P<n>kein(?:en|e|er)?\s+)?{_OBJECT}",
]
_FAVOURITE = [
    rf"(?i:my)\s+(?:(?i:new|current)\s+)?(?i:favou?rite)\s+(?P<o>[a-z][\w-]+(?:\s+[a-z][\w-]+)?)\s+(?i:is|are)\s+{_ADVERBS}(?P<v>[\w'-]+(?:\s+[\w'-]+){{0,2}})",
    rf"(?i:mein(?:e)?)\s+(?:(?i:neue[rs]?)\s+)?(?i:lieblings)(?P<o>[\wäöüß-]+)\s+(?:ist|sind)\s+{_ADVERBS}(?P<v>[\wäöüÄÖÜß'-]+(?:\s+[\wäöüÄÖÜß'-]+){{0,2}})",
]
_PLAN = [
    rf"{_I}(?:'m| am)\s+{_ADVERBS}(?i:planning|going)\s+(?:(?i:to|on)\s+)?{_OBJECT}",
    rf"{_I}\s+{_ADVERBS}(?i:plan)\s+(?i:to)\s+{_OBJECT}",
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?i:booked|scheduled|planned)\s+{_OBJECT}",
    rf"{_ICH}\s+(?:plane|buche|habe\s+(?:\w+\s+)?gebucht)\s+{_ADVERBS}{_OBJECT}",
]
_CANCEL = [
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?i:cancelled|canceled|called off|scrapped)\s+{_OBJECT}",
    rf"{_I}(?:'m| am)\s+(?i:not)\s+(?i:going|planning)\s+(?:(?i:to|on)\s+)?{_OBJECT}\s+(?i:anymore|any more|after all)",
    rf"{_I}(?:'ve| have)\s+(?i:decided not to)\s+{_OBJECT}",
    rf"{_ICH}\s+habe\s+{_ADVERBS}(?P<o>[\wäöüÄÖÜß' -]{{2,60}}?)\s+abgesagt",
]
_NAMED = [
    # "my phone number is now 555-0101", "my new address is ...", "the deadline is now May 3"
    rf"(?i:my|the|our)\s+(?P<m>(?i:new|current|updated)\s+)?(?P<o>[a-z][\w-]+(?:\s+[a-z][\w-]+){{0,2}})\s+(?i:is|are|has been|was)\s+(?:(?i:changed|moved|updated|pushed back|extended|increased|decreased|raised|lowered)\s+)?(?P<m2>(?i:now)\s+)?(?:(?i:to)\s+)?(?P<v>{_DATE}|{_NAME}|\d[\d,.:%/-]*\s*\w*)",
    # "the new daily quota of 1,200 calls", "a deadline of April 1"
    rf"(?i:the|my|a|our)\s+(?P<m>(?i:new|updated|revised)\s+)?(?P<o>[a-z][\w-]+(?:\s+[a-z][\w-]+)?)\s+(?i:of)\s+(?P<v>{_DATE}|\$?\d[\d,.]*%?)",
    # "... coverage, which has recently improved to 78%", "has now reached 165"
    rf"(?P<o>[a-z][\w-]+(?:\s+[a-z][\w-]+)?),?\s+(?:(?i:which|that)\s+)?(?i:has|have)\s+{_ADVERBS}(?i:improved|grown|increased|risen|dropped|decreased|reached|gone up|gone down|changed|moved)\s+(?:(?i:to)\s+)?(?P<v>\$?\d[\d,.]*%?)",
    rf"(?i:mein(?:e|en)?|unser(?:e)?|der|die|das)\s+(?P<m>(?i:neue[rsn]?)\s+)?(?P<o>[A-ZÄÖÜ][\wäöüß-]+)\s+(?:ist|sind|liegt)\s+(?P<m2>(?:jetzt|nun|inzwischen)\s+)?(?:bei\s+|am\s+)?(?P<v>{_DATE}|\d[\d,.:%/-]*\s*\w*|{_NAME})",
]

_RULES: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...] = tuple(
    (name, tuple(map(_pattern, sources)))
    for name, sources in (
        ("residence", _RESIDENCE),
        ("employer", _EMPLOYER),
        ("diet", _DIET_RULES),
        ("diet=omnivore", _OMNIVORE),
        ("diet=vegetarian", _VEGETARIAN),
        ("relationship", _RELATIONSHIP),
        ("occupation", _OCCUPATION),
        ("count", _COUNT),
        ("preference", _PREFERENCE),
        ("favourite", _FAVOURITE),
        ("plan", _PLAN),
        ("plan=cancelled", _CANCEL),
        ("named", _NAMED),
    )
)
# A rule group runs only on texts holding one of its words (most texts hold none): the
# patterns cost far more than one search for these.
# Gates: a rule group runs only on a sentence holding one of its word pairs (adjacent
# folded words) or single words ("=word"); most sentences hold none, and the set lookups
# cost far less than the patterns.
_I_WORDS = "i ve m just now recently finally also still currently actually already ich"
_GATE_SOURCES = {
    "residence": "live+in living+in based+in residing+in moved+to moved+back moved+into "
    "relocated+to ich+wohne ich+lebe ich+ziehe =gezogen =umgezogen",
    "employer": "work+at work+for working+at working+for working+with employed+at "
    "{I}+joined {I}+started job+at job+with my+job ich+arbeite =angefangen",
    "diet": "=" + " =".join(DIETS),
    "diet=omnivore": "=meat =fleisch",
    "diet=vegetarian": "=meat =fleisch",
    "relationship": "{I}+got m+married am+married m+single am+single "
    + " ".join(
        f"{w}+{v}"
        for w in ("m", "am", "now", "not", "longer", "bin", "jetzt", "nicht")
        for v in STATUSES
        if " " not in v
    ),
    "occupation": "work+as ich+arbeite",
    "count": "",  # see _gated
    "preference": " ".join(
        f"{w}+{v}"
        for w in (
            *_I_WORDS.split(),
            "really",
            "absolutely",
            "totally",
            "truly",
            "do",
            "t",
            "longer",
            "stopped",
        )
        for v in (
            "love",
            "like",
            "enjoy",
            "prefer",
            "adore",
            "hate",
            "dislike",
            "detest",
            "stand",
            "liking",
            "enjoying",
            "mag",
            "liebe",
            "hasse",
            "geniesse",
        )
    ),
    "favourite": "=favorite =favourite =lieblings",
    "plan": "m+planning am+planning m+going am+going i+plan {I}+booked {I}+scheduled "
    "{I}+planned ich+plane ich+buche =gebucht",
    "plan=cancelled": "=cancelled =canceled called+off =scrapped decided+not =abgesagt",
    "named": "",  # see _gated
}


def _gate(source: str) -> frozenset[str]:
    out: set[str] = set()
    for item in source.split():
        if "{I}" in item:
            out.update(item.replace("{I}", w) for w in _I_WORDS.split())
        else:
            out.add(item)
    return frozenset(fold(item) for item in out)


_GATES: dict[str, frozenset[str]] = {name: _gate(src) for name, src in _GATE_SOURCES.items()}
MARKER_WORDS = frozenset(
    fold(
        "now new anymore longer changed switched moved update updated updates instead since "
        "currently grown increased decreased dropped risen rose reached improved extended "
        "pushed postponed jetzt nun neu neue neuer neues neuen nicht mehr inzwischen "
        "mittlerweile stattdessen geändert umgezogen gestiegen gesunken verschoben"
    ).split()
)


def _needs() -> dict[re.Pattern[str], frozenset[str]]:
    """The slow patterns (searched at every "the", "my" or "I" of a long text) by the words
    one of which each cannot match without: :func:`zenbrain.layers._supersession.claims`
    skips a pattern whose words the text does not hold. Patterns not listed always run."""
    rules = dict(_RULES)
    words_of = {
        "count": (
            "have own attended completed adopted visited got",
            "my",
            "habe hab besitze",
            "mein meine",
            "number",
        ),
        "relationship": ("m am", "got", "bin"),
        "named": (
            "is are been was",
            "of",
            "improved grown increased risen dropped decreased reached gone changed moved",
            "ist sind liegt",
        ),
    }
    needs = {}
    for name, per_pattern in words_of.items():
        assert len(per_pattern) == len(rules[name]), name
        for pattern, needed in zip(rules[name], per_pattern, strict=True):
            needs[pattern] = frozenset(needed.split())
    return needs


_NEEDS = _needs()
# Named patterns that start with a word found all over a text ("the", any word) and so try
# a match at most positions, by a pattern every match of theirs contains (a part near the
# end that few texts hold): a text without it is not searched at all. Every text is read
# for these when a store indexes its claims.
_NAMED_PATTERNS = dict(_RULES)["named"]
_QUICK = {
    _NAMED_PATTERNS[1]: re.compile(r"(?i:of)\s+[A-Z\d$]"),
    _NAMED_PATTERNS[2]: re.compile(
        r"(?i:improved|grown|increased|risen|dropped|decreased|reached|gone up|gone down|"
        r"changed|moved)\s+(?:(?i:to)\s+)?\$?\d"
    ),
}
# Each rule group's name, the attribute it reads, and its patterns with the words one of
# which each needs and its quick test (None: none). Paired here once: hashing a compiled
# pattern to look these up costs microseconds (CPython hashes its whole code).
RULE_BASES = tuple(
    (
        name,
        name.split("=")[0],
        tuple((pattern, _NEEDS.get(pattern), _QUICK.get(pattern)) for pattern in patterns),
    )
    for name, patterns in _RULES
)


has_digit = re.compile(r"\d").search
"""A digit's match in a text, or None: a text without digit, gate word or marker word makes
no claim."""
_ALL_GATES = frozenset().union(*_GATES.values())
_COUNT_VERBS = frozenset(
    words("have own attended completed adopted visited got habe hab besitze number")
)
_POSSESSIVE = frozenset(["my", "mein", "meine"])
_ORDINAL_WORDS = frozenset([*ORDINALS, "funfte"])
_NUMERALS = frozenset([*_ORDINAL_WORDS, *NUMBER_WORDS])
# The gates' glue words: too common to open anything on their own.
_GLUE_WORDS = frozenset(
    words(
        "i m ve am my do t ich bin not now just also still really as als to with for in at into "
        "back off on of called decided totally recently finally currently actually already "
        "absolutely truly longer stopped got started"
    )
)
# Every word some gate needs: a text holding none of them (and no digit) makes no claim.
GATE_WORDS = frozenset(
    {part.lstrip("=") for key in _ALL_GATES for part in key.split("+")} - _GLUE_WORDS
    | _NUMERALS
    | {"number", "favorite", "favourite"}
)


# Words that open only the preference rules. A new memory is read for what it may replace,
# and a like replaces nothing unless the text says it turned (``TURNED_WORDS``): for such a read
# these words alone are no reason to look further ("like" and "love" are in a fifth of all
# chat turns).
PREFERENCE_ONLY = frozenset(
    part
    for key in _GATES["preference"]
    for part in key.split("+")[1:]
    if not any(
        part in other.split("+")
        for name, keys in _GATES.items()
        if name != "preference"
        for other in keys
    )
)
SUPERSEDING_GATE_WORDS = GATE_WORDS - PREFERENCE_ONLY


def _heads() -> dict[str, list[tuple[frozenset[str] | None, str]]]:
    """Each gate key by its last word: that word, and the words one of which must come just
    before it (None: the word alone opens the gate)."""
    heads: dict[str, dict[str, set[str] | None]] = {}
    for name, keys in _GATES.items():
        for key in keys:
            if key.startswith("="):
                heads.setdefault(key[1:], {})[name] = None
                continue
            first, last = key.split("+")
            entry = heads.setdefault(last, {})
            if name not in entry or entry[name] is not None:
                before = entry.get(name) or set()
                before.add(first)
                entry[name] = before
    return {
        word: [(None if before is None else frozenset(before), name) for name, before in by.items()]
        for word, by in heads.items()
    }


_HEADS = _heads()
_COPULA_NOW = frozenset(["is+now", "are+now", "ist+jetzt", "ist+nun", "sind+jetzt"])
_CHANGE_WORDS = frozenset(["changed", "updated", "geaendert", "aktualisiert"])


def gated_rules(folded: Sequence[str], present: set[str], text: str, superseding: bool) -> set[str]:
    """The rule groups whose gates ``folded`` (a text's words) opens."""
    open_rules: set[str] = set()
    previous = ""
    for word in folded:
        entries = _HEADS.get(word)
        if entries:
            for before, name in entries:
                if before is None or previous in before:
                    open_rules.add(name)
        previous = word
    if _gated("count", set(), present, text):
        open_rules.add("count")
    if "ieblings" in text:
        open_rules.add("favourite")
    if not MARKER_WORDS.isdisjoint(present):
        if (
            not superseding
            or has_digit(text)
            or not _CHANGE_WORDS.isdisjoint(present)
            or any(
                f"{a}+{b}" in _COPULA_NOW
                for a, b in itertools.pairwise(folded)
                if b in ("now", "jetzt", "nun")
            )
        ):
            open_rules.add("named")
    elif not superseding:
        open_rules.add("named")
    if superseding and "preference" in open_rules and TURNED_WORDS.isdisjoint(present):
        # A like replaces a dislike only when the text says it turned ("now", "anymore",
        # "don't", "kein ... mehr"); a plain "I love X" replaces nothing.
        open_rules.discard("preference")
    return open_rules


TURNED_WORDS = MARKER_WORDS | frozenset(
    [
        "don",
        "t",
        "not",
        "no",
        "longer",
        "hate",
        "dislike",
        "detest",
        "stopped",
        "cannot",
        "can",
        "kein",
        "keinen",
        "keine",
        "nicht",
        "mehr",
        "anymore",
        "hasse",
    ]
)


def _keys(folded: Sequence[str]) -> set[str]:
    """A text's gate keys: its adjacent word pairs ("a+b") and its words ("=a")."""
    keys = set(map("+".join, itertools.pairwise(folded)))
    keys.update(map("=".__add__, folded))
    return keys


def _gated(attribute: str, keys: set[str], present: set[str], text: str) -> bool:
    """Whether ``attribute``'s patterns can match a text with these gate keys and words."""
    if attribute == "named":
        return True  # the caller decides (a marker word)
    if attribute == "count":
        if present.isdisjoint(_COUNT_VERBS):
            return not present.isdisjoint(_POSSESSIVE) and (
                not present.isdisjoint(_ORDINAL_WORDS) or bool(has_digit(text))
            )
        return bool(has_digit(text)) or not present.isdisjoint(NUMBER_WORDS)
    if attribute == "favourite" and "ieblings" in text:
        return True
    return not keys.isdisjoint(_GATES[attribute])
