"""The supersession rules as pure functions: which new statement replaces which old one,
in English and German, and the distractors that must never replace anything."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zenbrain.layers._claim_rules import RULE_BASES
from zenbrain.layers._supersession import (
    about,
    claim_keys,
    claims,
    states_change,
    supersedes,
    superseding_claims,
)
from zenbrain.text import words

UPDATES = [
    ("I live in Hamburg.", "I moved to Berlin last month."),
    ("I work at Acme Corp.", "I just joined Globex as a designer."),
    ("I'm vegetarian.", "I'm vegan now."),
    ("I attended three sessions of the support group.", "That was my fifth session."),
    ("I love coffee.", "I don't like coffee anymore."),
    ("I'm planning a trip to Japan.", "I cancelled my trip to Japan."),
    ("I have two cats.", "I have three cats now."),
    ("I'm engaged to Sam.", "I got married in June."),
    ("My favorite color is blue.", "My favorite color is now green."),
    ("The project deadline is April 1.", "The project deadline is now April 15."),
    ("I live in Paris near the canal.", "I don't live in Paris anymore."),
    ("I work as a nurse.", "I work as a teacher now."),
    ("Ich wohne in Hamburg.", "Ich bin nach München gezogen."),
    ("Ich arbeite bei der Telekom.", "Ich arbeite jetzt bei Bosch."),
    ("Ich bin Vegetarier.", "Ich bin jetzt Veganer."),
    ("Ich habe zwei Katzen.", "Ich habe jetzt drei Katzen."),
    ("Ich mag Kaffee.", "Ich mag keinen Kaffee mehr."),
    ("Ich plane eine Reise nach Japan.", "Ich habe die Reise nach Japan abgesagt."),
    ("Ich habe drei Sitzungen besucht.", "Das war meine fünfte Sitzung."),
    ("Meine Lieblingsfarbe ist Blau.", "Meine Lieblingsfarbe ist jetzt Grün."),
]

DISTRACTORS = [
    ("I live in Hamburg.", "If I moved to Berlin, I would be happier."),  # hypothetical
    ("I live in Hamburg.", "I might move to Berlin."),
    ("I live in Hamburg.", "My sister lives in Berlin."),  # someone else's
    ("Anna: I live in Hamburg.", "Ben: I live in Berlin."),  # another speaker
    ("I live in Hamburg.", "Do you live in Berlin?"),  # a question
    ("I live in Hamburg.", "I work at Siemens."),  # same subject, other attribute
    ("I love coffee.", "I love tea."),  # another thing liked
    ("I ran 5 miles today.", "I ran 10 miles today."),  # a measure, not a state
    ("I have two cats.", "I have three dogs."),
    ("I live in Hamburg.", "I live in Hamburg, still."),  # the same value again
    ("The project deadline is April 1.", "The budget is 5000 dollars."),
    ("The project deadline is April 1.", "The project deadline is April 15."),  # no "now"
    ("I'm planning a trip to Japan.", "I'm planning a trip to Korea."),
    ("Ich wohne in Hamburg.", "Wenn ich nach Berlin ziehen würde, wäre ich froh."),
    ("Ich wohne in Hamburg.", "Meine Schwester wohnt in Wien."),
    ("Ich mag Kaffee.", "Ich mag Tee."),
]


@pytest.mark.parametrize(("old", "new"), UPDATES)
def test_a_newer_value_supersedes(old: str, new: str) -> None:
    pairs = superseding_claims(new, old)
    assert pairs, (claims(old), claims(new, superseding=True))
    assert all(n.attribute == o.attribute and n.subject == o.subject for n, o in pairs)


@pytest.mark.parametrize(("old", "new"), DISTRACTORS)
def test_distractors_never_supersede(old: str, new: str) -> None:
    assert superseding_claims(new, old) == []


def test_the_folded_words_give_the_same_claims() -> None:
    text = "That was my fifth session of the support group."
    assert claims(text, superseding=True) == claims(text, superseding=True, folded=words(text))


def test_questions_and_hypotheticals_yield_no_claims() -> None:
    for text in ("Do you still live in Berlin?", "If I joined Acme I'd move.",
                 "Wenn ich Veganer wäre, würde ich keinen Käse essen."):  # fmt: skip
        assert claims(text) == ()


def test_supersedes_needs_the_same_subject_and_a_different_value() -> None:
    (anna,) = claims("Anna: I live in Kiel.")
    (ben,) = claims("Ben: I live in Bonn.")
    (anna_later,) = claims("Anna: I moved to Bonn.")
    assert not supersedes(ben, anna)
    assert supersedes(anna_later, anna)
    assert not supersedes(anna, anna)


@pytest.mark.parametrize(
    ("old", "new", "replaces"),
    [
        ("I have completed 15 problems.", "I've completed 12 problems.", False),
        ("I have completed 15 problems.", "I've now completed 20 problems.", True),
        ("This is my third marathon.", "That was my 2nd marathon.", False),
        ("I have 3 cats.", "I have 2 cats now.", True),  # what one has can go down
    ],
)
def test_a_count_of_things_done_only_grows(old: str, new: str, replaces: bool) -> None:
    # BEAM: "I've completed 12 problems" in one session did not undo 15 in another.
    assert bool(superseding_claims(new, old)) is replaces


def test_about_names_the_subject_the_attribute_and_each_key_word() -> None:
    (claim,) = claims("I have three cats now.")
    assert about(claim) == ("i\x1fcount\x1fcat",)
    (residence,) = claims("Anna: I live in Rome.")
    assert about(residence) == ("anna\x1fresidence",)  # one value per subject: no key word


@pytest.mark.parametrize(("old", "new"), UPDATES)
def test_an_update_shares_a_claim_key_with_what_it_replaces(old: str, new: str) -> None:
    # The claim index finds candidates by these keys: an update that shared none with the
    # statement it replaces would never be found.
    assert superseding_claims(new, old)
    assert claim_keys(old) & claim_keys(new)


@pytest.mark.parametrize(
    "text",
    [
        "The commits merged into main have now reached 165.",
        "It was rescheduled to March 22 at 4:30 PM.",
        "I've increased my snack budget to $65, so we can order cupcakes.",
        "Can you update the quota to 1,200 calls per day?",
        "Die Miete ist jetzt 900 Euro.",
        "Das Treffen wurde auf 15 Uhr verschoben.",
    ],
)
def test_states_change_reads_a_change_with_a_value(text: str) -> None:
    assert states_change(text)


@pytest.mark.parametrize(
    "text",
    [
        "I have 3 cats. They are sleeping now.",  # the value and the change in two sentences
        "My budget is $35.",  # a value, no change
        "I moved to Berlin.",  # a change, no number
        "",
    ],
)
def test_states_change_needs_both_in_one_sentence(text: str) -> None:
    assert not states_change(text)


def test_an_assistants_turn_makes_no_claim() -> None:
    """An assistant explains and works examples: its "new side lengths of 10 cm" or "a
    budget of $30" replace nothing, with the role written either way."""
    for text in (
        "assistant: With the new scale factor of 1.5, the new side length is now 15 cm.",
        "AI: I work at Globex now.",
        "Assistant: Your new budget of $85 for snacks is now set.",
    ):
        assert claims(text) == () and claims(text, superseding=True) == ()


def test_a_users_turn_is_the_speaker_i() -> None:
    """A chat message stored with its role ("user: ...") speaks for "I", so it updates a
    statement stored without one."""
    [old] = claims("I live in Hamburg.")
    [new] = claims("user: I moved to Berlin last month.", superseding=True)
    assert new.subject == old.subject == "i"
    assert supersedes(new, old)
    assert superseding_claims("User: I moved to Berlin last month.", "I live in Hamburg.")


@settings(max_examples=300, deadline=None)
@given(
    role=st.sampled_from(["", "user: ", "User: ", "assistant: ", "AI: ", "Anna: "]),
    statement=st.sampled_from([text for pair in UPDATES for text in pair]),
    noise=st.text(max_size=300),
)
def test_any_text_is_read_without_error(role: str, statement: str, noise: str) -> None:
    """Arbitrary text, with or without a role, never breaks the reading; an assistant's
    message never yields a claim, whatever it says (here: a statement the rules read as a
    claim from anyone else, with arbitrary text after it)."""
    text = f"{role}{statement} {noise}"
    for superseding in (False, True):
        found = claims(text, superseding=superseding)
        assert isinstance(found, tuple)
        if role in ("assistant: ", "AI: "):
            assert found == ()
    assert isinstance(states_change(text), bool)


_PATTERN_WORDS = [
    "my",
    "the",
    "a",
    "our",
    "new",
    "updated",
    "revised",
    "deadline",
    "budget",
    "quota",
    "of",
    "is",
    "now",
    "to",
    "has",
    "have",
    "which",
    "that",
    "recently",
    "increased",
    "improved",
    "reached",
    "dropped",
    "gone",
    "up",
    "April",
    "3",
    "1,200",
    "$65",
    "78%",
    "calls",
    "coverage,",
    "Berlin",
    ".",
    ",",
    "I",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PATTERN_WORDS), min_size=2, max_size=14))
def test_a_quick_test_never_hides_a_match(chosen: list[str]) -> None:
    # A pattern is skipped when its quick test finds nothing: that test must hold on every
    # text the pattern matches, or a claim would silently go unread.
    text = " ".join(chosen)
    for _attribute, _base, patterns in RULE_BASES:
        for pattern, _needed, quick in patterns:
            if quick is not None and pattern.search(text):
                assert quick.search(text), (pattern.pattern[:40], text)
