"""When a new statement replaces an older one: the claims a text makes, read with the rules of
:mod:`zenbrain.layers._claim_rules`, and the rule that decides supersession. Pure functions,
English and German; no database, no model.

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
- an assistant's turns ("assistant: ...", "AI: ..."), which explain and work examples;
- counts of measures and events ("I ran 5 miles"), which do not describe a state.

The rule set is measured (false supersession on LoCoMo, REALTALK, MADial-Bench; latest-first
on BEAM and the scenario suite) in ``python -m benchmarks knowledge``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from zenbrain.layers._claim_rules import (
    DIETS,
    GATE_WORDS,
    MARKER_WORDS,
    NUMBER_WORDS,
    ORDINALS,
    PREFERENCE_ONLY,
    RULE_BASES,
    STATUSES,
    SUPERSEDING_GATE_WORDS,
    TURNED_WORDS,
    gated_rules,
    has_digit,
)
from zenbrain.text import fold, stem, words

__all__ = [
    "CLAIMS_VERSION",
    "RULE_LAYERS",
    "Claim",
    "about",
    "claim_keys",
    "claims",
    "may_claim",
    "states_change",
    "supersedes",
    "superseding_claims",
]


RULE_LAYERS = ("episodic", "semantic")
"""The layers whose memories the rules read: core blocks and procedures change through their
own calls."""
CLAIMS_VERSION = 1
"""The version of what the rules read from a text. Raise it with any change to the rules that
changes the claims of some text: every store then reads its claims again when opened
(:func:`zenbrain._storage.migrations.migrate`), so its claim index agrees with the rules."""


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
    # A count of things done ("attended", "completed", "visited") or an ordinal ("my third
    # marathon"): it only grows, so a smaller one counts another span, never an update.
    grows: bool = False


# ----------------------------------------------------------------------------- vocabulary
# Counted nouns that measure an event rather than describe a state.
_MEASURES = frozenset(
    words(
        "mile km kilometer meter hour minute second day week month year time dollar euro buck "
        "pound kg kilo percent point step rep lap page calori stunde minut tag woche monat "
        "jahr mal kilometr"
    )
)
# Objects that name nothing: a plan or a like of "it" is no claim.
_PRONOUNS = frozenset(
    words(
        "it this that them these those you him her what everything something anything es das "
        "dies ihn sie euch dich alles etwas"
    )
)
# Words in a named attribute that say nothing about which attribute it is.
_GENERIC = frozenset(
    words(
        "new current updated revised latest total overall main final first last next daily "
        "weekly monthly average basic initial neue neuer neues aktuelle"
    )
)
# Named attributes that are people or things described, not values held: "my kids are 5".
_NOT_ATTRIBUTES = frozenset(
    words(
        "kid child son daughter husband wife friend dog cat mom dad mother father brother "
        "sister family parent team boss partner girlfriend boyfriend baby thing idea one life "
        "day week time way trip vacation question answer"
    )
)
# How a dislike begins (the preference rules match likes and dislikes alike).
_NEGATIVE_PREFERENCE = (
    "hate",
    "dislike",
    "detest",
    "can't",
    "cannot",
    "don't",
    "do not",
    "no longer",
    "stopped",
    "hasse",
)
# A sentence with one of these states nothing: a question's "if", a wish, a doubt.
_HYPOTHETICAL = frozenset(
    fold(
        "if whether would could might may maybe perhaps suppose imagine wish hope should "
        "dream considering wenn falls ob würde wäre könnte vielleicht überlege möchte hätte "
        "sollte wuerde waere koennte ueberlege moechte haette"
    ).split()
)

# A text of the form "Name: ..." is Name speaking.
_SPEAKER = re.compile(r"^\s*(?P<s>[A-ZÄÖÜ][\w .'-]{0,40}?)\s*:\s+")

# Words that never make a claim's key.
_STOP_KEY = frozenset(
    words(
        "the and for with to of in on at my our your his her their a an some more any much "
        "many very really so too this that it is are was be been go going get der die das den "
        "dem des ein eine einen mit und fuer zum zur nach auf im am anymore again now mehr "
        "wieder jetzt nun"
    )
)


# ----------------------------------------------------------------------------- reading
def _words_key(text: str, limit: int = 4) -> frozenset[str]:
    terms = [stem(w) for w in fold(text).replace("-", " ").split()]
    content = [t for t in terms if len(t) > 2 and t not in _GENERIC and t not in _STOP_KEY]
    return frozenset(content[:limit])


def _number(raw: str) -> str:
    folded = fold(raw.strip()).rstrip(".")
    if folded in NUMBER_WORDS:
        return str(NUMBER_WORDS[folded])
    if folded in ORDINALS:
        return str(ORDINALS[folded])
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
    return sentence, not MARKER_WORDS.isdisjoint(folded)


_WORDS_OF_CHANGE = MARKER_WORDS | frozenset(
    fold(
        "rescheduled moved postponed delayed raised lowered reduced cut added expanded grew "
        "total latest revised adjusted upgraded downgraded recently anymore erhöht gesenkt "
        "aktualisiert geändert verlegt"
    ).split()
)


def states_change(text: str) -> bool:
    """Whether ``text`` says that something changed and gives a value: a word of change
    ("now", "increased", "rescheduled", "jetzt", "verschoben") and a number in one
    sentence. Recall lets such a newer memory about the same thing rank above an older one
    on weaker word overlap (:mod:`zenbrain._memory.validity`); nothing is closed by it, so
    questions and hypotheticals count too (an agent's user asks "can you update it to 1,200
    calls a day?")."""
    if not has_digit(text):
        return False
    return any(
        has_digit(sentence) and not _WORDS_OF_CHANGE.isdisjoint(words(sentence))
        for sentence in _SENTENCES.split(text)
    )


_SENTENCES = re.compile(r"[.!?;\n]\s")


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
        return Claim(subject, attribute, frozenset(), DIETS[fold(raw_value)], negated, marked)
    if attribute == "relationship":
        return Claim(subject, attribute, frozenset(), STATUSES[fold(raw_value)], negated, marked)
    if attribute == "occupation":
        return Claim(subject, attribute, frozenset(), fold(raw_value), negated, marked)
    if attribute == "count":
        noun = _count_noun(found["o"])
        if noun in _MEASURES or len(noun) < 3:
            return None
        value = _number(raw_value)
        if not value.isdigit():
            return None
        grows = _GROWING.search(match.group(0)) is not None
        return Claim(subject, "count", frozenset([noun]), value, False, marked, grows)
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


# What makes a count one that only grows: a verb of things done, or an ordinal's "my Nth".
_GROWING = re.compile(
    r"(?i:\b(?:attended|completed|visited)\b|\b(?:my|mein|meine)\s+(?:\d|[a-zäöüß]+(?:st|nd|rd|th|te)\b))"
)


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
    return (
        not GATE_WORDS.isdisjoint(folded)
        or bool(has_digit(text))
        or not MARKER_WORDS.isdisjoint(folded)
        or "ieblings" in text
    )


def _may_supersede(text: str, folded: Sequence[str]) -> bool:
    """:func:`may_claim` for a new memory read for what it may replace: a word of update
    alone opens nothing, and a like only with a word saying it turned ("like" and "love"
    are in a fifth of all chat turns; a like replaces nothing unless it turned)."""
    return (
        not SUPERSEDING_GATE_WORDS.isdisjoint(folded)
        or bool(has_digit(text))
        or "ieblings" in text
        or (not PREFERENCE_ONLY.isdisjoint(folded) and not TURNED_WORDS.isdisjoint(folded))
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
    role = _ROLE.match(text)
    if role is not None and fold(role.group("r")) in _ASSISTANT_ROLES:
        return ()
    folded = words(text) if folded is None else folded
    if not (_may_supersede(text, folded) if superseding else may_claim(text, folded)):
        return ()  # no rule's words, no number: most texts end here
    present = set(folded)
    opened = gated_rules(folded, present, text, superseding)
    if not opened:
        return ()
    rules = [
        (attribute, patterns)
        for attribute, base, patterns in RULE_BASES
        if attribute in opened and (only is None or base in only)
    ]
    if not rules:
        return ()
    if role is not None:  # a user's message: the user is "I"
        subject, body = "i", text[role.end() :]
    elif speaker := _SPEAKER.match(text):
        subject, body = fold(speaker.group("s")), text[speaker.end() :]
    else:
        subject, body = "i", text
    found: list[Claim] = []
    statements: dict[int, tuple[str, bool] | None] = {}  # sentence start -> (text, marked)
    for attribute, patterns in rules:
        for pattern, needed, quick in patterns:
            if needed is not None and needed.isdisjoint(present):
                continue
            if quick is not None and quick.search(body) is None:
                continue
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
                    found.append(claim)
    if any(c.attribute == "plan" and c.value == "cancelled" for c in found):
        # "I cancelled the trip I was planning": the cancellation is what the text says.
        found = [c for c in found if c.attribute != "plan" or c.value == "cancelled"]
    return tuple(dict.fromkeys(found))


# An assistant's turn makes no claim: it explains, answers and works examples ("a scale
# factor of 1.25"), and what it restates of the user is the user's to update. On BEAM its
# turns' named values were wrong 13 times in 14.
_ASSISTANT_ROLES = frozenset(["assistant", "ai", "bot", "chatbot", "model", "system"])
# A chat message stored with its role ("user: ...", "assistant: ..."): the user is "I".
_ROLE = re.compile(
    rf"^\s*(?P<r>(?i:{'|'.join(sorted(_ASSISTANT_ROLES | {'user', 'human'}))}))\s*:\s+"
)


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
    # "completed 12 problems" after "completed 15" counts another span.
    return not (new.grows and old.grows and int(new.value) < int(old.value))


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
    restated = {(c.attribute, c.key, c.value, c.negated) for c in new_claims}
    if any((old.attribute, old.key, old.value, old.negated) in restated for _new, old in pairs):
        return []
    return pairs


# Attributes whose claims must share a word of their key to replace one another
# (:func:`_same_key`); the others are one value per subject.
_KEYED = frozenset(["count", "favourite", "named", "preference", "plan"])


def about(claim: Claim) -> tuple[str, ...]:
    """What ``claim`` is about, as keys that every claim it could replace, or be replaced
    by, shares with it (see :func:`supersedes`): its subject and attribute, with one word of
    its key for the attributes that have one. A store keeps current memories under these
    keys, so finding what a new memory replaces is a lookup; the rule still decides."""
    head = f"{claim.subject}\x1f{claim.attribute}"
    if claim.attribute not in _KEYED:
        return (head,)
    return tuple(f"{head}\x1f{term}" for term in sorted(claim.key))


def claim_keys(text: str, folded: Sequence[str] | None = None) -> frozenset[str]:
    """What every claim of ``text`` is about (:func:`about`): the keys a store indexes it
    under while it is current."""
    return frozenset(key for claim in claims(text, folded=folded) for key in about(claim))


def claimed(texts: Sequence[str]) -> list[tuple[Claim, ...]]:
    """:func:`claims` of each text (a convenience for batches)."""
    return [claims(text) for text in texts]
