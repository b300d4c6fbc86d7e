# ruff: noqa: E501  (the rule patterns are data: one pattern a line reads best)
"""When a new statement replaces an older one: claims read from text by rules, and the rule
that decides supersession. Pure functions, English and German; no database, no model.

A *claim* is what a sentence says about one subject: who (``subject``: the speaker, or "I"
when there is none), what (``attribute``: where they live, who employs them, their diet, how
many of something they have, whether they like something, whether a plan stands, or a named
attribute such as a deadline) and the value. A new memory supersedes an older one when some
claim of each has the same subject and attribute and a different value (or polarity).

Precision comes before recall: a sentence only yields a claim when it states something about
its speaker in the present or the just-completed past. These never yield one:

- questions ("Do you still live in Berlin?");
- hypotheticals and intentions under doubt ("if I moved to Berlin", "I might join Acme",
  "wenn ich nach Berlin ziehen würde");
- someone else's facts ("Anna lives in Rome", "my sister moved to Paris" is the sister's,
  never the speaker's);
- counts of measures and events ("I ran 5 miles"), which do not describe a state.

The rule set is measured (false supersession on LoCoMo, REALTALK, MADial-Bench; latest-first
on BEAM and the scenario suite) in ``python -m benchmarks.knowledge_updates``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from zenbrain.text import fold, stem, tokenize, words

__all__ = ["Claim", "claims", "may_claim", "probe_terms", "supersedes", "superseding_claims"]


@dataclass(frozen=True, slots=True)
class Claim:
    """One statement about a subject. ``key`` refines open attributes (the thing liked, the
    plan, the counted noun); ``negated`` marks "no longer" / "nicht mehr"."""

    subject: str
    attribute: str
    key: frozenset[str]
    value: str
    negated: bool = False
    marked: bool = False  # the sentence says it is an update ("now", "new", "jetzt")
    terms: tuple[str, ...] = ()  # index terms of the words the claim was read from


# ----------------------------------------------------------------------------- vocabulary
_NAME = r"[A-ZÄÖÜ][\w'&.-]*(?:\s+(?:(?:de|von|van|del|am|an|upon|on)\s+)?[A-ZÄÖÜ][\w'&.-]*)*"
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a dozen": 12, "twenty": 20,
    "ein": 1, "eine": 1, "einen": 1, "zwei": 2, "drei": 3, "vier": 4, "fuenf": 5, "funf": 5,
    "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwoelf": 12,
}  # fmt: skip
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
    "erste": 1, "zweite": 2, "dritte": 3, "vierte": 4, "fuenfte": 5, "sechste": 6,
    "siebte": 7, "achte": 8, "neunte": 9, "zehnte": 10,
}  # fmt: skip
_DATE = (
    r"(?:(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Januar|Februar|März|Juni|Juli|Oktober|Dezember)\s+\d{1,2}(?:st|nd|rd|th)?"
    r"(?:,?\s+\d{4})?|\d{1,2}\.\s*(?:Januar|Februar|März|April|Mai|Juni|Juli|August|"
    r"September|Oktober|November|Dezember)(?:\s+\d{4})?)"
)
_NUM = r"(?:\d[\d,.]*|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r"|fünf|zwölf)"
_ORD = r"(?:\d+(?:st|nd|rd|th|\.)|" + "|".join(_ORDINALS) + r"|fünfte)"
# Counted nouns that measure an event rather than describe a state.
_MEASURES = frozenset(
    [
        "mile",
        "km",
        "kilometer",
        "meter",
        "hour",
        "minute",
        "second",
        "day",
        "week",
        "month",
        "year",
        "time",
        "dollar",
        "euro",
        "buck",
        "pound",
        "kg",
        "kilo",
        "percent",
        "point",
        "step",
        "rep",
        "lap",
        "page",
        "calori",
        "stunde",
        "minut",
        "tag",
        "woche",
        "monat",
        "jahr",
        "mal",
        "kilometr",
    ]
)
_DIETS = {
    "vegan": "vegan", "veganer": "vegan", "veganerin": "vegan", "vegetarian": "vegetarian",
    "vegetarier": "vegetarian", "vegetarierin": "vegetarian", "vegetarisch": "vegetarian",
    "pescatarian": "pescatarian", "keto": "keto", "gluten-free": "gluten-free",
    "glutenfrei": "gluten-free", "flexitarian": "flexitarian", "flexitarier": "flexitarian",
}  # fmt: skip
_DIET = r"(?P<v>" + "|".join(sorted(_DIETS, key=len, reverse=True)) + r")"
_STATUSES = {
    "married": "married", "single": "single", "engaged": "engaged", "divorced": "divorced",
    "separated": "separated", "widowed": "widowed", "verheiratet": "married",
    "ledig": "single", "verlobt": "engaged", "geschieden": "divorced", "getrennt": "separated",
    "retired": "retired", "pensioniert": "retired", "in rente": "retired",
    "unemployed": "unemployed", "arbeitslos": "unemployed", "pregnant": "pregnant",
    "schwanger": "pregnant",
}  # fmt: skip
_STATUS = r"(?P<v>" + "|".join(sorted(_STATUSES, key=len, reverse=True)) + r")"
_ADVERBS = (
    r"(?:(?:now|just|recently|finally|actually|currently|still|already|officially|also|"
    r"jetzt|nun|inzwischen|mittlerweile|seit kurzem|kürzlich|gerade|schon|wieder|noch|"
    r"endlich|offiziell)\s+)*"
)
_I = r"(?:^|(?<=[\s,;:(\"]))(?:I|i)"
_ICH = r"(?:^|(?<=[\s,;:(\"]))(?:[Ii]ch)"
_OBJECT = r"(?P<o>[\w'-]+(?:\s+(?!and\b|but\b|because\b|und\b|aber\b|weil\b)[\w'-]+){0,3})"
_PRONOUNS = frozenset(
    [
        "it",
        "this",
        "that",
        "them",
        "these",
        "those",
        "you",
        "him",
        "her",
        "what",
        "everything",
        "something",
        "anything",
        "es",
        "das",
        "dies",
        "ihn",
        "sie",
        "euch",
        "dich",
        "alles",
        "etwas",
    ]
)
_HYPOTHETICAL = frozenset(
    fold(
        "if whether would could might may maybe perhaps suppose imagine wish hope should "
        "dream considering wenn falls ob würde wäre könnte vielleicht überlege möchte hätte "
        "sollte wuerde waere koennte ueberlege moechte haette"
    ).split()
)
_SPEAKER = re.compile(r"^\s*(?P<s>[A-ZÄÖÜ][\w .'-]{0,40}?)\s*:\s+")
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
]  # fmt: skip
_EMPLOYER = [
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?i:joined|started (?:working |a (?:new )?job )?(?:at|with|for)|got a (?:new )?job (?:at|with))\s+(?P<v>{_NAME})",
    rf"{_I}(?:'m| am)?\s+{_ADVERBS}(?i:work|working|employed)\s+(?i:at|for|with)\s+(?P<v>{_NAME})",
    rf"{_I}\s+(?P<n>(?i:don't|do not|no longer))\s+(?i:work)\s+(?i:at|for)\s+(?P<v>{_NAME})",
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?P<n>(?i:quit|left))\s+(?i:my (?:job|position) at\s+)(?P<v>{_NAME})",
    rf"{_ICH}\s+arbeite\s+{_ADVERBS}(?P<n>nicht mehr\s+)?(?:bei|für|fuer)\s+(?:(?:der|die|dem|den)\s+)?(?P<v>{_NAME})",
    rf"{_ICH}\s+habe\s+{_ADVERBS}bei\s+(?P<v>{_NAME})\s+(?:angefangen|angeheuert)",
]  # fmt: skip
_DIET_RULES = [
    rf"{_I}(?:'m| am)\s+{_ADVERBS}(?P<n>(?i:no longer|not)\s+)?(?:(?i:a|fully|strictly)\s+)*(?i:{_DIET})\b",
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?i:went|gone|turned|become|became)\s+(?i:{_DIET})\b",
    rf"{_ICH}\s+(?:bin|lebe|esse)\s+{_ADVERBS}(?P<n>kein(?:e|er)?\s+|nicht mehr\s+)?(?:(?i:{_DIET}))\b",
]  # fmt: skip
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
]  # fmt: skip
_COUNT = [
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?i:have|own|attended|completed|adopted|visited|got|have got|now have)\s+(?:(?i:a total of|about|around)\s+)?(?P<v>(?i:{_NUM}))\s+(?P<o>[A-Za-z][\w-]+)",
    rf"(?i:(?:that|this|it|today|yesterday)(?:'s| is| was| will be))\s+(?i:my)\s+(?P<v>(?i:{_ORD}))\s+(?P<o>[A-Za-z][\w-]+)",
    rf"{_ICH}\s+(?:habe|hab|besitze)\s+{_ADVERBS}(?:insgesamt\s+)?(?P<v>(?i:{_NUM}))\s+(?P<o>[A-ZÄÖÜ][\wäöüß-]+)",
    rf"(?:[Dd]as|[Ee]s|[Hh]eute)\s+(?:war|ist)\s+(?:mein|meine)\s+(?P<v>(?i:{_ORD}))\s+(?P<o>[A-ZÄÖÜ][\wäöüß-]+)",
    rf"(?i:the number of)\s+(?P<o>[a-z][\w-]+)\b[^,]{{0,60}}?\b(?i:has|have|is|are)\s+{_ADVERBS}(?:(?i:grown|increased|risen|dropped|decreased|gone up|gone down|reached|changed)\s+)?(?i:to\s+)?(?P<v>\d[\d,.]*)",
]  # fmt: skip
_PREFERENCE = [
    rf"{_I}\s+{_ADVERBS}(?:(?i:really|absolutely|totally|truly|do)\s+)*(?P<p>(?i:love|like|enjoy|prefer|adore|hate|dislike|detest|can't stand|cannot stand|don't like|do not like|don't enjoy|no longer like|no longer enjoy|stopped liking|stopped enjoying))\s+{_OBJECT}",
    rf"{_ICH}\s+(?P<p>mag|liebe|hasse|genieße|geniesse)\s+(?P<n>kein(?:en|e|er)?\s+)?{_OBJECT}",
]  # fmt: skip
_FAVOURITE = [
    rf"(?i:my)\s+(?:(?i:new|current)\s+)?(?i:favou?rite)\s+(?P<o>[a-z][\w-]+(?:\s+[a-z][\w-]+)?)\s+(?i:is|are)\s+{_ADVERBS}(?P<v>[\w'-]+(?:\s+[\w'-]+){{0,2}})",
    rf"(?i:mein(?:e)?)\s+(?:(?i:neue[rs]?)\s+)?(?i:lieblings)(?P<o>[\wäöüß-]+)\s+(?:ist|sind)\s+{_ADVERBS}(?P<v>[\wäöüÄÖÜß'-]+(?:\s+[\wäöüÄÖÜß'-]+){{0,2}})",
]  # fmt: skip
_PLAN = [
    rf"{_I}(?:'m| am)\s+{_ADVERBS}(?i:planning|going)\s+(?:(?i:to|on)\s+)?{_OBJECT}",
    rf"{_I}\s+{_ADVERBS}(?i:plan)\s+(?i:to)\s+{_OBJECT}",
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?i:booked|scheduled|planned)\s+{_OBJECT}",
    rf"{_ICH}\s+(?:plane|buche|habe\s+(?:\w+\s+)?gebucht)\s+{_ADVERBS}{_OBJECT}",
]  # fmt: skip
_CANCEL = [
    rf"{_I}(?:'ve| have)?\s+{_ADVERBS}(?i:cancelled|canceled|called off|scrapped)\s+{_OBJECT}",
    rf"{_I}(?:'m| am)\s+(?i:not)\s+(?i:going|planning)\s+(?:(?i:to|on)\s+)?{_OBJECT}\s+(?i:anymore|any more|after all)",
    rf"{_I}(?:'ve| have)\s+(?i:decided not to)\s+{_OBJECT}",
    rf"{_ICH}\s+habe\s+{_ADVERBS}(?P<o>[\wäöüÄÖÜß' -]{{2,60}}?)\s+abgesagt",
]  # fmt: skip
_NAMED = [
    # "my phone number is now 555-0101", "my new address is ...", "the deadline is now May 3"
    rf"(?i:my|the|our)\s+(?P<m>(?i:new|current|updated)\s+)?(?P<o>[a-z][\w-]+(?:\s+[a-z][\w-]+){{0,2}})\s+(?i:is|are|has been|was)\s+(?:(?i:changed|moved|updated|pushed back|extended|increased|decreased|raised|lowered)\s+)?(?P<m2>(?i:now)\s+)?(?:(?i:to)\s+)?(?P<v>{_DATE}|{_NAME}|\d[\d,.:%/-]*\s*\w*)",
    # "the new daily quota of 1,200 calls", "a deadline of April 1"
    rf"(?i:the|my|a|our)\s+(?P<m>(?i:new|updated|revised)\s+)?(?P<o>[a-z][\w-]+(?:\s+[a-z][\w-]+)?)\s+(?i:of)\s+(?P<v>{_DATE}|\$?\d[\d,.]*%?)",
    # "... coverage, which has recently improved to 78%", "has now reached 165"
    rf"(?P<o>[a-z][\w-]+(?:\s+[a-z][\w-]+)?),?\s+(?:(?i:which|that)\s+)?(?i:has|have)\s+{_ADVERBS}(?i:improved|grown|increased|risen|dropped|decreased|reached|gone up|gone down|changed|moved)\s+(?:(?i:to)\s+)?(?P<v>\$?\d[\d,.]*%?)",
    rf"(?i:mein(?:e|en)?|unser(?:e)?|der|die|das)\s+(?P<m>(?i:neue[rsn]?)\s+)?(?P<o>[A-ZÄÖÜ][\wäöüß-]+)\s+(?:ist|sind|liegt)\s+(?P<m2>(?:jetzt|nun|inzwischen)\s+)?(?:bei\s+|am\s+)?(?P<v>{_DATE}|\d[\d,.:%/-]*\s*\w*|{_NAME})",
]  # fmt: skip

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
    "diet": "=" + " =".join(_DIETS),
    "diet=omnivore": "=meat =fleisch",
    "diet=vegetarian": "=meat =fleisch",
    "relationship": "{I}+got m+married am+married m+single am+single "
    + " ".join(
        f"{w}+{v}"
        for w in ("m", "am", "now", "not", "longer", "bin", "jetzt", "nicht")
        for v in _STATUSES
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
_MARKER_WORDS = frozenset(
    fold(
        "now new anymore longer changed switched moved update updated updates instead since "
        "currently grown increased decreased dropped risen rose reached improved extended "
        "pushed postponed jetzt nun neu neue neuer neues neuen nicht mehr inzwischen "
        "mittlerweile stattdessen geändert umgezogen gestiegen gesunken verschoben"
    ).split()
)
_RULE_BASES = tuple((name, name.split("=")[0], patterns) for name, patterns in _RULES)
# Words in a named attribute that say nothing about which attribute it is.
_GENERIC = frozenset(
    [
        "new",
        "current",
        "updated",
        "revised",
        "latest",
        "total",
        "overall",
        "main",
        "final",
        "first",
        "last",
        "next",
        "daily",
        "weekly",
        "monthly",
        "average",
        "basic",
        "initial",
        "neue",
        "neuer",
        "neues",
        "aktuelle",
    ]
)
# Named attributes that are people or things described, not values held: "my kids are 5".
_NOT_ATTRIBUTES = frozenset(
    [
        "kid",
        "child",
        "son",
        "daughter",
        "husband",
        "wife",
        "friend",
        "dog",
        "cat",
        "mom",
        "dad",
        "mother",
        "father",
        "brother",
        "sister",
        "family",
        "parent",
        "team",
        "boss",
        "partner",
        "girlfriend",
        "boyfriend",
        "baby",
        "thing",
        "idea",
        "one",
        "life",
        "day",
        "week",
        "time",
        "way",
        "trip",
        "vacation",
        "question",
        "answer",
    ]
)
_NEGATIVE_PREFERENCE = ("hate", "dislike", "detest", "can't", "cannot", "don't", "do not",
                        "no longer", "stopped", "hasse")  # fmt: skip


# ----------------------------------------------------------------------------- reading
def _words_key(text: str, limit: int = 4) -> frozenset[str]:
    terms = [stem(w) for w in fold(text).replace("-", " ").split()]
    content = [t for t in terms if len(t) > 2 and t not in _GENERIC and t not in _STOP_KEY]
    return frozenset(content[:limit])


_STOP_KEY = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "to",
        "of",
        "in",
        "on",
        "at",
        "my",
        "our",
        "your",
        "his",
        "her",
        "their",
        "a",
        "an",
        "some",
        "more",
        "any",
        "much",
        "many",
        "very",
        "really",
        "so",
        "too",
        "this",
        "that",
        "it",
        "is",
        "are",
        "was",
        "be",
        "been",
        "go",
        "going",
        "get",
        "der",
        "die",
        "das",
        "den",
        "dem",
        "des",
        "ein",
        "eine",
        "einen",
        "mit",
        "und",
        "fuer",
        "zum",
        "zur",
        "nach",
        "auf",
        "im",
        "am",
        "anymore",
        "again",
        "now",
        "mehr",
        "wieder",
        "jetzt",
        "nun",
    ]
)


def _number(raw: str) -> str:
    folded = fold(raw.strip()).rstrip(".")
    if folded in _NUMBER_WORDS:
        return str(_NUMBER_WORDS[folded])
    if folded in _ORDINALS:
        return str(_ORDINALS[folded])
    digits = re.sub(r"(?<=\d)(?:st|nd|rd|th)$", "", folded).replace(",", "")
    try:
        return str(int(float(digits)))
    except ValueError:
        return folded


def _count_noun(raw: str) -> str:
    folded = fold(raw)
    if folded.endswith("en") and raw[:1].isupper():  # German plural: Katzen, Sitzungen
        folded = folded[:-2]
    return stem(folded)


_SENTENCE_STOP = re.compile(r"[.!?;\n]")


def _statement(body: str, start: int) -> tuple[str, bool] | None:
    """The sentence of ``body`` starting at ``start`` and whether it says it is an update;
    None for a question or a hypothetical ("if", "would", "thinking about", "wenn",
    "würde"), which state nothing."""
    stop = _SENTENCE_STOP.search(body, start)
    end = len(body) if stop is None else stop.end()
    sentence = body[start:end]
    if "?" in sentence:
        return None
    folded = words(sentence)
    if not _HYPOTHETICAL.isdisjoint(folded) or "thinking" in folded:
        return None
    return sentence, not _MARKER_WORDS.isdisjoint(folded)


_DIGIT = re.compile(r"\d").search
_ALL_GATES = frozenset().union(*_GATES.values())
_COUNT_VERBS = frozenset(
    [
        "have",
        "own",
        "attended",
        "completed",
        "adopted",
        "visited",
        "got",
        "habe",
        "hab",
        "besitze",
        "number",
    ]
)
_POSSESSIVE = frozenset(["my", "mein", "meine"])
_ORDINAL_WORDS = frozenset([*_ORDINALS, "funfte"])
_NUMERALS = frozenset([*_ORDINAL_WORDS, *_NUMBER_WORDS])
# Every word some gate needs: a text holding none of them (and no digit) makes no claim.
_GATE_WORDS = frozenset(
    {part.lstrip("=") for key in _ALL_GATES for part in key.split("+")}
    - {"i", "m", "ve", "am", "my", "do", "t", "ich", "bin", "not", "now", "just", "also",
       "still", "really", "as", "als", "to", "with", "for", "in", "at", "into", "back", "off",
       "on", "of", "called", "decided", "totally", "recently", "finally", "currently",
       "actually", "already", "absolutely", "truly", "longer", "stopped", "got", "started"}
    | _NUMERALS
    | {"number", "favorite", "favourite"}
)  # fmt: skip


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


def _gated_rules(
    folded: Sequence[str], present: set[str], text: str, superseding: bool
) -> set[str]:
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
    if not _MARKER_WORDS.isdisjoint(present):
        if (
            not superseding
            or _DIGIT(text)
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
    return open_rules


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
                not present.isdisjoint(_ORDINAL_WORDS) or bool(_DIGIT(text))
            )
        return bool(_DIGIT(text)) or not present.isdisjoint(_NUMBER_WORDS)
    if attribute == "favourite" and "ieblings" in text:
        return True
    return not keys.isdisjoint(_GATES[attribute])


def _claim(
    attribute: str, match: re.Match[str], sentence: str, subject: str, marked: bool
) -> Claim | None:
    found = match.groupdict()
    raw_value = (found.get("v") or "").strip()
    negated = bool(found.get("n"))
    if "=" in attribute:
        attribute, raw_value = attribute.split("=")
        key = _words_key(found["o"]) if found.get("o") else frozenset()
        if attribute == "plan" and (not key or set(fold(found["o"]).split()[:1]) & _PRONOUNS):
            return None
        return Claim(subject, attribute, key, raw_value, False, marked)
    if attribute in ("residence", "employer"):
        value = fold(raw_value).strip(" .,;:!'\"")
        if not value or value in _PRONOUNS:
            return None
        if attribute == "employer" and found.get("n") and fold(found["n"]) in ("quit", "left"):
            negated = True
        return Claim(subject, attribute, frozenset(), value, negated, marked)
    if attribute == "diet":
        if "kein" in sentence or "Kein" in sentence:
            negated = True
        return Claim(subject, attribute, frozenset(), _DIETS[fold(raw_value)], negated, marked)
    if attribute == "relationship":
        return Claim(subject, attribute, frozenset(), _STATUSES[fold(raw_value)], negated, marked)
    if attribute == "occupation":
        return Claim(subject, attribute, frozenset(), fold(raw_value), negated, marked)
    if attribute == "count":
        noun = _count_noun(found["o"])
        if noun in _MEASURES or len(noun) < 3:
            return None
        value = _number(raw_value)
        if not value.isdigit():
            return None
        return Claim(subject, "count", frozenset([noun]), value, False, marked)
    if attribute == "preference":
        key = _words_key(found["o"], 3)
        if not key or set(fold(found["o"]).split()[:1]) & _PRONOUNS:
            return None
        polarity = fold(found["p"])
        negative = polarity.startswith(_NEGATIVE_PREFERENCE) or negated
        if re.search(r"\bnicht\b", match.string[match.end("o") : match.end("o") + 40]):
            negative = True
        return Claim(subject, "preference", key, "dislike" if negative else "like", False, marked)
    if attribute == "favourite":
        key = _words_key(found["o"], 2)
        value = " ".join(sorted(_words_key(raw_value, 3)))
        if not key or not value:
            return None
        return Claim(subject, "favourite", key, value, False, marked)
    if attribute == "plan":
        key = _words_key(found["o"])
        if len(key) < 1 or set(fold(found["o"]).split()[:1]) & _PRONOUNS:
            return None
        return Claim(subject, "plan", key, "planned", False, marked)
    if attribute == "named":
        key = _words_key(found["o"], 3)
        head = sorted(key)
        if not key or any(term in _NOT_ATTRIBUTES for term in head):
            return None
        value = _value(raw_value)
        if not value:
            return None
        marked = marked or bool(found.get("m") or found.get("m2"))
        return Claim(subject, "named", key, value, False, marked)
    return None


def _value(raw: str) -> str:
    raw = raw.strip().rstrip(",.;:!")
    if not raw:
        return ""
    if raw[:1].isdigit() or raw[:1] == "$":
        return _number(raw.split()[0].rstrip("%")) + ("%" if "%" in raw else "")
    return fold(raw)


def may_claim(text: str, folded: Sequence[str]) -> bool:
    """Whether :func:`claims` can find anything in ``text`` at all (a cheap test): a text
    failing it can neither replace nor be replaced."""
    present = set(folded)
    return (
        not _GATE_WORDS.isdisjoint(present)
        or bool(_DIGIT(text))
        or not _MARKER_WORDS.isdisjoint(present)
        or "ieblings" in text
    )


def claims(
    text: str,
    *,
    superseding: bool = False,
    folded: Sequence[str] | None = None,
    only: frozenset[str] | None = None,
) -> tuple[Claim, ...]:
    """Every claim ``text`` makes about its speaker (see the module docstring). A text of the
    form ``"Name: ..."`` is Name speaking; otherwise the speaker is "I". ``superseding=True``
    reads only the claims that could replace an older one (a named attribute only in a
    sentence that says it changed): what a new memory is read for, at less cost. ``folded``:
    :func:`zenbrain.text.words` of ``text``, when the caller has them."""
    folded = words(text) if folded is None else folded
    if (
        _GATE_WORDS.isdisjoint(folded)
        and not _DIGIT(text)
        and "ieblings" not in text
        and (superseding or _MARKER_WORDS.isdisjoint(folded))
    ):
        return ()  # no rule's words, no number: most texts end here
    present = set(folded)
    opened = _gated_rules(folded, present, text, superseding)
    if not opened:
        return ()
    rules = [
        (attribute, patterns)
        for attribute, base, patterns in _RULE_BASES
        if attribute in opened and (only is None or base in only)
    ]
    if not rules:
        return ()
    speaker = _SPEAKER.match(text)
    subject = fold(speaker.group("s")) if speaker else "i"
    body = text[speaker.end() :] if speaker else text
    found: list[Claim] = []
    statements: dict[int, tuple[str, bool] | None] = {}  # sentence start -> (text, marked)
    for attribute, patterns in rules:
        for pattern in patterns:
            for match in pattern.finditer(body):
                # The patterns run over the whole text; a match counts only in a statement.
                start = max(body.rfind(c, 0, match.start()) for c in ".!?;\n") + 1
                if start not in statements:
                    statements[start] = _statement(body, start)
                statement = statements[start]
                if statement is None:
                    continue
                sentence, sentence_marked = statement
                if superseding and attribute == "named" and not sentence_marked:
                    continue
                claim = _claim(attribute, match, sentence, subject, sentence_marked)
                if claim is not None:
                    read = " ".join(v for v in match.groupdict().values() if v)
                    found.append(replace(claim, terms=tuple(tokenize(read))))
    if any(c.attribute == "plan" and c.value == "cancelled" for c in found):
        # "I cancelled the trip I was planning": the cancellation is what the text says.
        found = [c for c in found if c.attribute != "plan" or c.value == "cancelled"]
    return tuple(dict.fromkeys(found))


def _same_key(new: Claim, old: Claim) -> bool:
    if new.attribute in ("count", "favourite"):
        return new.key == old.key
    if new.attribute == "named":
        return bool(new.key & old.key) and (new.key <= old.key or old.key <= new.key)
    if new.attribute in ("preference", "plan"):
        shared = new.key & old.key
        return bool(shared) and len(shared) * 2 >= min(len(new.key), len(old.key)) + 1
    return True


def supersedes(new: Claim, old: Claim) -> bool:
    """Whether claim ``new`` (said later) replaces claim ``old``: the same subject and
    attribute, and a different value, or the same value negated."""
    if new.subject != old.subject or new.attribute != old.attribute:
        return False
    if not _same_key(new, old):
        return False
    if new.negated:
        # "I no longer live in Berlin" closes "I live in Berlin", nothing else.
        return not old.negated and new.value == old.value
    if old.negated:
        return new.value == old.value  # "not vegan" then "vegan again"
    if new.value == old.value:
        return False
    if new.attribute == "named" and not new.marked:
        return False  # a named attribute changes only when the new sentence says so
    if new.attribute == "plan":
        return new.value == "cancelled" and old.value == "planned"
    return True


@lru_cache(maxsize=4096)
def _claims_of(text: str, attributes: frozenset[str]) -> tuple[Claim, ...]:
    return claims(text, only=attributes)


def superseding_claims(
    new_text: str, old_text: str, new_claims: Sequence[Claim] | None = None
) -> list[tuple[Claim, Claim]]:
    """The pairs of claims by which ``new_text`` replaces ``old_text`` (empty: it does not).
    Two texts whose claims only repeat each other, or disagree on nothing, give none; so
    does a text that says both values (a comparison rather than an update)."""
    if new_claims is None:
        new_claims = claims(new_text, superseding=True)
    # Only the rules of the new claims' attributes read the candidate (cached: a candidate
    # is read for many new memories).
    old_claims = _claims_of(old_text, frozenset(c.attribute for c in new_claims))
    if not old_claims:
        return []
    pairs = [(n, o) for n in new_claims for o in old_claims if supersedes(n, o)]
    if not pairs:
        return []
    # A new text still saying the old value ("I moved from Hamburg to Berlin, and I live in
    # Hamburg"?) is a contradiction in itself: leave it.
    for _new, old in pairs:
        if any(c.attribute == old.attribute and c.key == old.key and c.value == old.value
               and c.negated == old.negated for c in new_claims):  # fmt: skip
            return []
    return pairs


def probe_terms(claim: Claim) -> list[str]:
    """Index terms that an older memory about the same attribute is likely to contain: the
    words a lexical candidate search for it starts from."""
    words = {
        "residence": "live living moved wohne lebe gezogen",
        "employer": "work working job joined arbeite",
        "diet": "vegan vegetarian vegetarier veganer meat fleisch",
        "relationship": "married single engaged divorced verheiratet",
        "occupation": "work arbeite",
        "count": "",
        "preference": "",
        "favourite": "favorite favourite lieblings",
        "plan": "",
        "named": "",
    }[claim.attribute]
    variants = (
        [f"{k}{end}" for k in claim.key for end in ("en", "n")]
        if claim.attribute == "count"
        else []
    )
    return list(dict.fromkeys([*claim.terms, *variants, *tokenize(words)]))


def claimed(texts: Sequence[str]) -> list[tuple[Claim, ...]]:
    """:func:`claims` of each text (a convenience for batches)."""
    return [claims(text) for text in texts]
