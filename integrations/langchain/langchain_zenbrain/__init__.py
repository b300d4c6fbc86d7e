"""LangChain and LangGraph integration for zenbrain, the seven-layer memory for LLM agents.

========================================  ===============================================
``ZenBrainRetriever``                     ``coordinator.recall`` as a LangChain retriever
``ZenBrainChatMessageHistory``            a session's messages in the short-term layer
``ZenBrainStore``                         a LangGraph ``BaseStore`` (agents, LangMem)
``create_zenbrain_tools``                 the five memory tools as LangChain tools
``LangChainEmbeddings``                   LangChain ``Embeddings`` as an ``EmbeddingProvider``
``LangChainSummarizer``                   a LangChain chat model as the ``Summarizer``
========================================  ===============================================
"""

from typing import TYPE_CHECKING, Any

from langchain_zenbrain.chat_history import ZenBrainChatMessageHistory
from langchain_zenbrain.documents import recall_result_to_document
from langchain_zenbrain.embeddings import LangChainEmbeddings
from langchain_zenbrain.retriever import ZenBrainRetriever
from langchain_zenbrain.summarizer import LangChainSummarizer
from langchain_zenbrain.tools import create_zenbrain_tools

if TYPE_CHECKING:
    from langchain_zenbrain.store import ZenBrainStore

__all__ = [
    "LangChainEmbeddings",
    "LangChainSummarizer",
    "ZenBrainChatMessageHistory",
    "ZenBrainRetriever",
    "ZenBrainStore",
    "create_zenbrain_tools",
    "recall_result_to_document",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # ZenBrainStore needs LangGraph, an optional extra: import it only when asked for.
    if name == "ZenBrainStore":
        try:
            from langchain_zenbrain.store import ZenBrainStore
        except ImportError as exc:
            from zenbrain.errors import MissingDependencyError

            raise MissingDependencyError(
                "ZenBrainStore needs LangGraph, which is not installed. "
                "Install it with: pip install 'langchain-zenbrain[langgraph]'"
            ) from exc
        return ZenBrainStore
    raise AttributeError(f"module 'langchain_zenbrain' has no attribute {name!r}")
