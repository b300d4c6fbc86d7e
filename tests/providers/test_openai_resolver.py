"""OpenAIChatResolver against a real HTTP server on loopback (see conftest.py), alone and
deciding a coordinator's knowledge updates."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import pytest

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError, ProviderError
from zenbrain.providers import OpenAIChatResolver, Resolver
from zenbrain.providers._openai_resolver import DEFAULT_RESOLVER_PROMPT

MAY = datetime(2025, 5, 1, tzinfo=UTC)
OCTOBER = datetime(2025, 10, 1, tzinfo=UTC)


def _resolver(server: Any) -> OpenAIChatResolver:
    return OpenAIChatResolver("resolver-model", base_url=server.base_url, api_key=server.api_key)


def test_proposes_the_candidates_the_model_names(openai_server: Any) -> None:
    openai_server.chat_content = "[2]"
    resolver = _resolver(openai_server)
    assert isinstance(resolver, Resolver)
    chosen = resolver.propose(
        "I moved to Berlin.", [("a", "I like tea."), ("b", "I live in Kiel.")]
    )
    assert chosen == ["b"]
    (request,) = openai_server.requests
    assert request.path == "/v1/chat/completions"
    messages = request.body["messages"]
    assert messages[0] == {"role": "system", "content": DEFAULT_RESOLVER_PROMPT}
    assert "NEW: I moved to Berlin." in messages[1]["content"]
    assert "2. I live in Kiel." in messages[1]["content"]


def test_no_candidates_means_no_request(openai_server: Any) -> None:
    assert _resolver(openai_server).propose("anything", []) == []
    assert openai_server.requests == []


@pytest.mark.parametrize("answer", ["maybe", "[3]", "[0]", '["b"]', "{}", "[true]", ""])
def test_garbage_answers_are_provider_errors(openai_server: Any, answer: str) -> None:
    openai_server.chat_content = answer
    with pytest.raises(ProviderError):
        _resolver(openai_server).propose("new", [("a", "old"), ("b", "older")])


def test_fenced_and_reasoning_answers_are_read(openai_server: Any) -> None:
    openai_server.chat_content = "<think>the second</think>\n```json\n[1, 2]\n```"
    assert _resolver(openai_server).propose("n", [("a", "x"), ("b", "y")]) == ["a", "b"]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(InvalidInputError):
        OpenAIChatResolver("")
    with pytest.raises(InvalidInputError):
        OpenAIChatResolver("m", system_prompt=" ")


def test_a_coordinator_lets_the_model_decide(openai_server: Any) -> None:
    openai_server.chat_content = "[1]"
    with MemoryCoordinator(":memory:", supersession=_resolver(openai_server)) as memory:
        old = memory.store("The garden gate is painted blue.", created_at=MAY)
        new = memory.store("The garden gate is painted red.", created_at=OCTOBER)
        assert (memory.get(old) or pytest.fail()).superseded_by == new
        assert openai_server.requests  # the model was asked, over HTTP


def test_a_garbage_answer_leaves_the_rules_to_decide(
    openai_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    openai_server.chat_content = "I think the first one, probably"
    with MemoryCoordinator(":memory:", supersession=_resolver(openai_server)) as memory:
        old = memory.store("I live in Hamburg.", created_at=MAY)
        gate = memory.store("The garden gate is painted blue.", created_at=MAY)
        with caplog.at_level(logging.WARNING, logger="zenbrain"):
            new = memory.store("I moved to Berlin.", created_at=OCTOBER)
            memory.store("The garden gate is painted red.", created_at=OCTOBER)
        assert "resolver answer ignored" in caplog.text
        assert (memory.get(old) or pytest.fail()).superseded_by == new  # the rules' call
        assert (memory.get(gate) or pytest.fail()).valid_to is None  # no rule covers paint
