"""The public surface of langchain_zenbrain is exactly what __all__ names."""

from __future__ import annotations

import langchain_zenbrain

EXPECTED = {
    "LangChainEmbeddings",
    "LangChainSummarizer",
    "ZenBrainChatMessageHistory",
    "ZenBrainMemoryMiddleware",
    "ZenBrainRetriever",
    "ZenBrainStore",
    "create_zenbrain_tools",
    "recall_result_to_document",
}


def test_all_names_the_public_api() -> None:
    assert set(langchain_zenbrain.__all__) == EXPECTED
    for name in EXPECTED:
        assert getattr(langchain_zenbrain, name) is not None


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        langchain_zenbrain.NotAThing  # noqa: B018
    except AttributeError as exc:
        assert "NotAThing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")
