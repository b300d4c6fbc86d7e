"""OpenAIEmbeddings against a real HTTP server on loopback (see conftest.py)."""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

import numpy as np
import pytest

from zenbrain.errors import InvalidInputError, ProviderError
from zenbrain.providers import EmbeddingProvider, OpenAIEmbeddings


def _embedder(server: Any, **kwargs: Any) -> OpenAIEmbeddings:
    options: dict[str, Any] = {
        "base_url": server.base_url,
        "api_key": server.api_key,
        "retry_backoff": 0.0,
    }
    options.update(kwargs)
    return OpenAIEmbeddings("text-embedding-test", **options)


def test_embeds_in_input_order_with_unit_rows_and_sends_the_key(openai_server: Any) -> None:
    texts = ["first note", "second note", "third note"]
    embedder = _embedder(openai_server)

    vectors = embedder.embed_documents(texts)

    assert isinstance(vectors, np.ndarray)
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, openai_server.dimension)
    # The server answers in reverse order; rows must still follow the input.
    for row, text in zip(vectors, texts, strict=True):
        np.testing.assert_allclose(row, openai_server.expected_vector(text), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    (request,) = openai_server.requests
    assert request.path == "/v1/embeddings"
    assert request.headers["Authorization"] == f"Bearer {openai_server.api_key}"
    assert request.body == {"model": "text-embedding-test", "input": texts}


def test_satisfies_the_protocol_and_names_the_model(openai_server: Any) -> None:
    embedder = _embedder(openai_server, model_id="my-store-model")
    assert isinstance(embedder, EmbeddingProvider)
    assert embedder.model_id == "my-store-model"
    assert OpenAIEmbeddings("text-embedding-3-small").model_id == "text-embedding-3-small"


def test_api_key_comes_from_the_environment(
    openai_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    embedder = OpenAIEmbeddings("m", base_url=openai_server.base_url)
    embedder.embed_queries(["hello"])
    assert openai_server.requests[0].headers["Authorization"] == f"Bearer {openai_server.api_key}"


def test_no_key_sends_no_authorization_header(openai_server: Any) -> None:
    openai_server.api_key = None  # a local server such as Ollama
    embedder = OpenAIEmbeddings("m", base_url=openai_server.base_url)
    embedder.embed_documents(["hello"])
    assert "Authorization" not in openai_server.requests[0].headers


def test_rejected_key_is_a_clear_error_that_never_shows_the_key(
    openai_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    wrong_key = "sk-wrong-key-that-must-stay-secret"
    embedder = _embedder(openai_server, api_key=wrong_key)

    with caplog.at_level(logging.DEBUG), pytest.raises(ProviderError) as caught:
        embedder.embed_documents(["hello"])

    message = str(caught.value)
    assert f"{openai_server.base_url}/embeddings" in message
    assert "401" in message
    assert "Incorrect API key provided" in message
    assert "***" in message
    assert wrong_key not in message
    assert wrong_key not in caplog.text
    assert wrong_key not in repr(embedder)
    assert len(openai_server.requests) == 1  # 401 is not retried


def test_dimension_is_learnt_from_the_first_answer(openai_server: Any) -> None:
    openai_server.dimension = 12
    embedder = _embedder(openai_server)

    assert embedder.dimension == 12
    assert len(openai_server.requests) == 1  # one probe request
    assert embedder.embed_documents(["a", "b"]).shape == (2, 12)
    assert embedder.dimension == 12
    assert len(openai_server.requests) == 2


def test_requested_dimension_is_sent_and_checked(openai_server: Any) -> None:
    embedder = _embedder(openai_server, dimension=5)

    assert embedder.embed_documents(["x"]).shape == (1, 5)
    assert openai_server.requests[0].body["dimensions"] == 5

    openai_server.honour_dimensions = False  # a server that ignores the field
    with pytest.raises(ProviderError, match="dimension 8, expected 5"):
        embedder.embed_documents(["y"])


def test_batches_requests_and_keeps_order(openai_server: Any) -> None:
    texts = [f"note number {i}" for i in range(7)]
    embedder = _embedder(openai_server, batch_size=3)

    vectors = embedder.embed_documents(texts)

    assert [len(r.body["input"]) for r in openai_server.requests] == [3, 3, 1]
    expected = np.vstack([openai_server.expected_vector(t) for t in texts])
    np.testing.assert_allclose(vectors, expected, rtol=1e-5, atol=1e-6)


def test_prefixes_go_before_queries_and_documents(openai_server: Any) -> None:
    embedder = _embedder(openai_server, query_prefix="query: ", document_prefix="passage: ")
    query = embedder.embed_queries(["protein per day"])
    document = embedder.embed_documents(["protein per day"])

    assert openai_server.requests[0].body["input"] == ["query: protein per day"]
    assert openai_server.requests[1].body["input"] == ["passage: protein per day"]
    assert not np.allclose(query, document)


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_transient_failures_are_retried(openai_server: Any, status: int) -> None:
    openai_server.fail_next(status, times=2)
    embedder = _embedder(openai_server, max_retries=3)

    vectors = embedder.embed_documents(["survives"])

    np.testing.assert_allclose(vectors[0], openai_server.expected_vector("survives"), rtol=1e-5)
    assert len(openai_server.requests) == 3


def test_retry_waits_with_growing_backoff_and_honours_retry_after(openai_server: Any) -> None:
    openai_server.fail_next(503, times=2)
    openai_server.fail_next(429, headers={"Retry-After": "2"})
    embedder = _embedder(openai_server, max_retries=3, retry_backoff=0.25)
    pauses: list[float] = []
    embedder._client.sleep = pauses.append  # record instead of sleeping

    embedder.embed_documents(["x"])

    assert pauses == [0.25, 0.5, 2.0]


def test_gives_up_after_the_retry_budget_with_status_and_message(openai_server: Any) -> None:
    openai_server.fail_next(503, times=10, message="Model is loading")
    embedder = _embedder(openai_server, max_retries=2)

    with pytest.raises(ProviderError) as caught:
        embedder.embed_documents(["x"])

    message = str(caught.value)
    assert "HTTP 503" in message
    assert "Model is loading" in message
    assert "after 3 attempts" in message
    assert f"{openai_server.base_url}/embeddings" in message
    assert len(openai_server.requests) == 3


def test_client_errors_are_not_retried_and_quote_the_server(openai_server: Any) -> None:
    openai_server.reply_next(400, json.dumps({"error": "model 'nomic' not found"}).encode())
    embedder = _embedder(openai_server, max_retries=3)

    with pytest.raises(ProviderError, match=r"HTTP 400: model 'nomic' not found"):
        embedder.embed_documents(["x"])
    assert len(openai_server.requests) == 1


def test_wrong_path_hints_at_the_base_url(openai_server: Any) -> None:
    embedder = OpenAIEmbeddings(
        "m", base_url=openai_server.base_url.removesuffix("/v1"), api_key=openai_server.api_key
    )
    with pytest.raises(ProviderError, match=r"HTTP 404.*check base_url"):
        embedder.embed_documents(["x"])


def test_malformed_json_is_a_provider_error_without_retry(openai_server: Any) -> None:
    openai_server.reply_next(200, b"<html>gateway says hi</html>")
    embedder = _embedder(openai_server, max_retries=3)

    with pytest.raises(ProviderError, match=r"not JSON.*gateway says hi"):
        embedder.embed_documents(["x"])
    assert len(openai_server.requests) == 1


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ({"object": "list"}, "without a 'data' list"),
        ({"data": []}, "returned 0 embeddings for 2 inputs"),
        (
            {"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}]},
            "index 0",
        ),
        (
            {"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": "n0t-b64!"}]},
            "neither a list of numbers nor base64",
        ),
        (
            {"data": [{"index": 0, "embedding": [1.0, 2.0]}, {"index": 1, "embedding": [1.0]}]},
            "differing lengths",
        ),
        (
            {"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": ["a"]}]},
            "not a list of numbers",
        ),
    ],
)
def test_malformed_answers_are_named(
    openai_server: Any, payload: dict[str, Any], fragment: str
) -> None:
    openai_server.reply_next(200, json.dumps(payload).encode())
    with pytest.raises(ProviderError, match=fragment):
        _embedder(openai_server).embed_documents(["a", "b"])


def test_base64_embeddings_are_decoded(openai_server: Any) -> None:
    openai_server.base64_embeddings = True
    vectors = _embedder(openai_server).embed_documents(["packed"])
    np.testing.assert_allclose(vectors[0], openai_server.expected_vector("packed"), rtol=1e-5)


def test_unreachable_server_is_a_connection_error_after_retries() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    embedder = OpenAIEmbeddings(
        "m", base_url=f"http://127.0.0.1:{closed_port}/v1", max_retries=1, retry_backoff=0.0
    )
    with pytest.raises(ProviderError, match=r"connection error.*after 2 attempts"):
        embedder.embed_documents(["x"])


def test_slow_server_times_out(openai_server: Any) -> None:
    openai_server.reply_next(200, b"{}", delay=1.0)
    embedder = _embedder(openai_server, timeout=0.2, max_retries=0)
    with pytest.raises(ProviderError, match=r"connection error.*timed out"):
        embedder.embed_documents(["x"])


def test_empty_batch_returns_an_empty_matrix(openai_server: Any) -> None:
    embedder = _embedder(openai_server, dimension=8)
    assert embedder.embed_documents([]).shape == (0, 8)
    assert openai_server.requests == []


@pytest.mark.parametrize("bad", ["a bare string", [1, 2], ["ok", None]])
def test_bad_input_is_refused_before_any_request(openai_server: Any, bad: Any) -> None:
    with pytest.raises(InvalidInputError):
        _embedder(openai_server).embed_documents(bad)
    assert openai_server.requests == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"base_url": "ftp://example.invalid"},
        {"base_url": ""},
        {"batch_size": 0},
        {"dimension": 0},
        {"timeout": -1},
        {"max_retries": -1},
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError):
        OpenAIEmbeddings("m", **kwargs)


def test_normalize_false_keeps_the_servers_vectors(openai_server: Any) -> None:
    vectors = _embedder(openai_server, normalize=False).embed_documents(["raw"])
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(vectors[0], openai_server.raw_vector("raw", 8), rtol=1e-6)
