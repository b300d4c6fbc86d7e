"""OpenAIChatSummarizer against a real HTTP server on loopback (see conftest.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zenbrain.errors import InvalidInputError, ProviderError
from zenbrain.providers import OpenAIChatSummarizer, Summarizer
from zenbrain.providers._openai_chat import DEFAULT_SUMMARY_PROMPT


def _summarizer(server: Any, **kwargs: Any) -> OpenAIChatSummarizer:
    options: dict[str, Any] = {
        "base_url": server.base_url,
        "api_key": server.api_key,
        "retry_backoff": 0.0,
    }
    options.update(kwargs)
    return OpenAIChatSummarizer("chat-test-model", **options)


def test_summarizes_the_notes_it_is_given(openai_server: Any) -> None:
    summarizer = _summarizer(openai_server)
    assert isinstance(summarizer, Summarizer)

    summary = summarizer.summarize(["Alice likes tea.", "  Alice drinks green tea daily.  "])

    assert summary == "Summary: Alice likes tea. | Alice drinks green tea daily."
    (request,) = openai_server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == f"Bearer {openai_server.api_key}"
    body = request.body
    assert body["model"] == "chat-test-model"
    assert body["messages"][0] == {"role": "system", "content": DEFAULT_SUMMARY_PROMPT}
    assert body["messages"][1]["role"] == "user"
    assert body["max_tokens"] == 256
    assert body["temperature"] == 0.0


def test_custom_prompt_and_omitted_sampling_fields(openai_server: Any) -> None:
    summarizer = _summarizer(
        openai_server, system_prompt="Be brief.", max_tokens=None, temperature=None
    )
    summarizer.summarize(["one"])
    body = openai_server.requests[0].body
    assert body["messages"][0]["content"] == "Be brief."
    assert "max_tokens" not in body
    assert "temperature" not in body


def test_reasoning_preamble_is_dropped(openai_server: Any) -> None:
    openai_server.chat_content = "<think>\nThe notes agree.\n</think>\n\nBob lives in Kiel."
    assert _summarizer(openai_server).summarize(["Bob moved to Kiel."]) == "Bob lives in Kiel."


def test_transient_failure_is_retried(openai_server: Any) -> None:
    openai_server.fail_next(502)
    openai_server.fail_next(429, headers={"Retry-After": "0"})
    summary = _summarizer(openai_server, max_retries=2).summarize(["a fact"])
    assert summary == "Summary: a fact"
    assert len(openai_server.requests) == 3


def test_gives_up_with_a_clear_message(openai_server: Any) -> None:
    openai_server.fail_next(500, times=5, message="upstream exploded")
    with pytest.raises(ProviderError) as caught:
        _summarizer(openai_server, max_retries=1).summarize(["a fact"])
    message = str(caught.value)
    assert f"{openai_server.base_url}/chat/completions" in message
    assert "HTTP 500: upstream exploded" in message
    assert "after 2 attempts" in message


def test_wrong_key_is_reported_without_the_key(openai_server: Any) -> None:
    wrong_key = "sk-summariser-secret"
    with pytest.raises(ProviderError, match="HTTP 401") as caught:
        _summarizer(openai_server, api_key=wrong_key).summarize(["x"])
    assert wrong_key not in str(caught.value)
    assert wrong_key not in repr(_summarizer(openai_server, api_key=wrong_key))


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        (b"not json at all", "not JSON"),
        (json.dumps({"choices": []}).encode(), "without choices"),
        (
            json.dumps({"choices": [{"message": {"role": "assistant", "content": None}}]}).encode(),
            "no text content",
        ),
        (
            json.dumps({"choices": [{"message": {"role": "assistant", "content": "  "}}]}).encode(),
            "empty summary",
        ),
    ],
)
def test_unusable_answers_are_provider_errors(
    openai_server: Any, reply: bytes, fragment: str
) -> None:
    openai_server.reply_next(200, reply)
    with pytest.raises(ProviderError, match=fragment):
        _summarizer(openai_server).summarize(["x"])
    assert len(openai_server.requests) == 1


@pytest.mark.parametrize("bad", [[], ["", "   "], "just a string", [42]])
def test_bad_input_is_refused_before_any_request(openai_server: Any, bad: Any) -> None:
    with pytest.raises(InvalidInputError):
        _summarizer(openai_server).summarize(bad)
    assert openai_server.requests == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"temperature": 3.0},
        {"max_tokens": 0},
        {"base_url": "localhost:11434"},
        {"system_prompt": None},
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError):
        OpenAIChatSummarizer("m", **kwargs)
