"""LangChain and LangGraph integration for zenbrain, the seven-layer memory for LLM agents.

========================================  ===============================================
``ZenBrainRetriever``                     ``coordinator.recall`` as a LangChain retriever
``ZenBrainChatMessageHistory``            a session's messages in the short-term layer
``ZenBrainStore``                         a LangGraph ``BaseStore`` (agents, LangMem)
``ZenBrainMemoryMiddleware``              memory for ``langchain.agents.create_agent``
``create_zenbrain_tools``                 the five memory tools as LangChain tools
``LangChainEmbeddings``                   LangChain ``Embeddings`` as an ``EmbeddingProvider``
``LangChainSummarizer``                   a LangChain chat model as the ``Summarizer``
========================================  ===============================================
"""

import importlib
from typing import TYPE_CHECKING, Any

from langchain_zenbrain.chat_history import ZenBrainChatMessageHistory
from langchain_zenbrain.documents import recall_result_to_document
from langchain_zenbrain.embeddings import LangChainEmbeddings
from langchain_zenbrain.retriever import ZenBrainRetriever
from langchain_zenbrain.summarizer import LangChainSummarizer
from langchain_zenbrain.tools import create_zenbrain_tools

if TYPE_CHECKING:
    from langchain_zenbrain.middleware import ZenBrainMemoryMiddleware
    from langchain_zenbrain.store import ZenBrainStore

__all__ = [
    "LangChainEmbeddings",
    "LangChainSummarizer",
    "ZenBrainChatMessageHistory",
    "ZenBrainMemoryMiddleware",
    "ZenBrainRetriever",
    "ZenBrainStore",
    "create_zenbrain_tools",
    "recall_result_to_document",
]

__version__ = "0.1.0"


# Names that need an optional extra, imported only when asked for: the module, the package
# it needs and the extra that installs it.
_OPTIONAL = {
    "ZenBrainStore": ("langchain_zenbrain.store", "langgraph", "langgraph"),
    "ZenBrainMemoryMiddleware": ("langchain_zenbrain.middleware", "langchain", "agents"),
}


def __getattr__(name: str) -> Any:
    if name not in _OPTIONAL:
        raise AttributeError(f"module 'langchain_zenbrain' has no attribute {name!r}")
    module_name, package, extra = _OPTIONAL[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != package:
            raise
        from zenbrain.errors import MissingDependencyError

        raise MissingDependencyError(
            f"{name} needs {package}, which is not installed. "
            f"Install it with: pip install 'langchain-zenbrain[{extra}]'"
        ) from exc
    return getattr(module, name)
