"""What of a chat transcript reaches long-term memory: ``worth_remembering``."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zenbrain.layers import worth_remembering

KEEP, DROP = True, False

# A realistic chat (English, then German, with a few turns in other scripts): every turn
# with whether it should become a long-term memory.
CHAT: list[tuple[str, str, bool]] = [
    ("user", "hi there", DROP),
    ("assistant", "Hello! How can I help you today?", DROP),
    ("user", "What's the weather like?", DROP),
    ("assistant", "I can't check live weather, but I can help you plan around it.", DROP),
    ("user", "ok", DROP),
    ("user", "I'm training for the Hamburg marathon in April.", KEEP),
    ("assistant", "Great goal! How many kilometres do you run per week?", DROP),
    ("user", "About 40 km, mostly early in the morning before work.", KEEP),
    ("user", "How to make pancakes?", DROP),
    ("assistant", "Mix flour, milk and eggs, then fry thin layers in butter.", DROP),
    ("user", "I'm vegan, any ideas for a pancake without eggs?", KEEP),
    ("assistant", "Use mashed banana or flax seeds instead of eggs.", DROP),
    ("user", "thanks!", DROP),
    ("user", "Remember that my sister Lena's birthday is on May 3rd.", KEEP),
    ("assistant", "Noted: Lena's birthday is on May 3rd.", DROP),
    ("user", "Write me a haiku about autumn.", DROP),
    ("assistant", "Red leaves drift and fall / ...", DROP),
    ("user", "Sounds good!", DROP),
    ("user", "No, the other one.", DROP),
    ("user", "We decided to move the release of the billing service to Friday.", KEEP),
    ("user", "From now on, always answer in British English.", KEEP),
    ("user", "Do you remember what I told you about the release?", DROP),
    ("user", "Guten Morgen!", DROP),
    ("user", "Ich arbeite seit März als Data Engineer bei Siemens in Erlangen.", KEEP),
    ("user", "Wie spät ist es in Tokio?", DROP),
    ("user", "Danke, alles klar.", DROP),
    ("user", "Merk dir bitte: mein Zug nach Berlin fährt um 7:40.", KEEP),
    ("user", "Ich mag keinen Kaffee, nur grünen Tee.", KEEP),
    ("user", "私はベジタリアンです。", KEEP),
    ("user", "今日は何曜日ですか？", DROP),
    ("user", "ありがとうございます！", DROP),
    ("user", "Berlin.", DROP),
    ("user", "🎉🎉", DROP),
    ("user", "See you tomorrow!", DROP),
    ("user", "Bis morgen!", DROP),
]


def test_the_chat_has_about_thirty_turns_of_each_kind() -> None:
    assert len(CHAT) >= 30
    assert sum(keep for _, _, keep in CHAT) >= 10
    assert sum(not keep for _, _, keep in CHAT) >= 15


@pytest.mark.parametrize(("role", "content", "keep"), CHAT, ids=[c for _, c, _ in CHAT])
def test_each_turn_of_a_realistic_chat(role: str, content: str, keep: bool) -> None:
    assert worth_remembering(role, content) is keep


def test_assistant_and_system_turns_are_never_remembered() -> None:
    statement = "I'm training for the Hamburg marathon in April."
    assert worth_remembering("user", statement)
    assert worth_remembering("Human", statement)
    for role in ("assistant", "system", "tool", "ai", ""):
        assert not worth_remembering(role, statement), role


@pytest.mark.parametrize(
    "content",
    ["", "   ", "?", "...", "ok ok ok", "Thank you so much!", "Hey, how are you?", "lol"],
)
def test_empty_and_small_talk_turns_are_dropped(content: str) -> None:
    assert not worth_remembering("user", content)


@pytest.mark.parametrize(
    "content",
    [
        "Don't forget: the staging database is called zb-stage-2.",
        "Keep in mind that I'm allergic to peanuts.",
        "Vergiss nicht, dass ich donnerstags Yoga habe.",
        "Can you remember that my car is a blue Skoda?",
    ],
)
def test_explicit_requests_to_remember_are_kept(content: str) -> None:
    assert worth_remembering("user", content)


def test_a_statement_after_small_talk_is_kept() -> None:
    assert worth_remembering("user", "Thanks! By the way, I moved to Hamburg last month.")
    assert not worth_remembering("user", "Thanks! Good night.")


@given(st.text(max_size=200))
def test_any_text_in_any_script_gives_a_bool(content: str) -> None:
    assert worth_remembering("user", content) in (True, False)
    assert worth_remembering("assistant", content) is False
