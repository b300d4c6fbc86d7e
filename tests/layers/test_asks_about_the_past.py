"""A question about what was said or done then, not about what holds now."""

from __future__ import annotations

import pytest

from zenbrain.layers._time_expressions import asks_about_the_past


@pytest.mark.parametrize(
    ("question", "past"),
    [
        ("What did I say about the sprint deadline?", True),
        ("How did you recommend managing the flow of requests?", True),
        ("What was the name of Anna's dog?", True),
        ("Was hat Anna über den Umzug erzählt?", True),
        ("Wann war das Treffen mit Robert?", True),
        ("What is the average response time of the dashboard API?", False),
        ("How many commits have been merged into the main branch?", False),
        ("What was the latest score?", False),  # asks for what is current all the same
        ("Was ist mein Budget für Bücher?", False),  # German "was" is "what"
        ("Wie hoch ist die Miete jetzt, die ich damals erwähnt hatte?", False),
    ],
)
def test_past_tense_questions(question: str, past: bool) -> None:
    assert asks_about_the_past(question) is past
