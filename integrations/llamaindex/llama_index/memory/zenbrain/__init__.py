"""LlamaIndex integration for zenbrain, the seven-layer memory for LLM agents.

``ZenBrainMemoryBlock``   a ``Memory`` block: core blocks and recalled memories in, flushed
                          messages out to long-term memory
``LlamaIndexEmbedding``   a LlamaIndex ``BaseEmbedding`` as zenbrain's ``EmbeddingProvider``
``LlamaIndexSummarizer``  a LlamaIndex ``LLM`` as zenbrain's consolidation ``Summarizer``
"""

from llama_index.memory.zenbrain.block import ZenBrainMemoryBlock
from llama_index.memory.zenbrain.embeddings import LlamaIndexEmbedding
from llama_index.memory.zenbrain.summarizer import LlamaIndexSummarizer

__all__ = ["LlamaIndexEmbedding", "LlamaIndexSummarizer", "ZenBrainMemoryBlock"]
