"""LlamaIndex integration for zenbrain, the seven-layer memory for LLM agents.

``ZenBrainMemoryBlock``   a ``Memory`` block: core blocks and recalled memories in, the
                          conversation's messages out to long-term memory
``ZenBrainChatStore``     a ``BaseChatStore`` keeping chat histories in a zenbrain store
``zenbrain_tools``        the five memory tools as LlamaIndex ``FunctionTool`` objects
``LlamaIndexEmbedding``   a LlamaIndex ``BaseEmbedding`` as zenbrain's ``EmbeddingProvider``
``LlamaIndexSummarizer``  a LlamaIndex ``LLM`` as zenbrain's consolidation ``Summarizer``
"""

from llama_index.memory.zenbrain.block import ZenBrainMemoryBlock
from llama_index.memory.zenbrain.chat_store import ZenBrainChatStore
from llama_index.memory.zenbrain.embeddings import LlamaIndexEmbedding
from llama_index.memory.zenbrain.summarizer import LlamaIndexSummarizer
from llama_index.memory.zenbrain.tools import zenbrain_tool, zenbrain_tools

__all__ = [
    "LlamaIndexEmbedding",
    "LlamaIndexSummarizer",
    "ZenBrainChatStore",
    "ZenBrainMemoryBlock",
    "zenbrain_tool",
    "zenbrain_tools",
]
