"""Realistic text for the scale benchmark: memories and queries derived from LoCoMo.

The 5,882 conversation turns of ``locomo10.json`` (ten long chats between two people) are
the first memories, each as ``"<speaker>: <turn>"``. Larger corpora repeat the turns with
seeded variations, each pass drawing its own: every person's name (the speakers' and those
in the turns) is replaced by another first name, numbers are replaced by others of the
same length, and one word in five of the rest is dropped or swapped with its neighbour.
Queries are LoCoMo's own QA questions varied the same way. Unlike the synthetic corpus,
questions and memories share common words ("what", "did", "go"), names recur across
thousands of memories, and routing spreads the memories over episodic, semantic and
procedural layers as it would for a real agent.

Vectors are the bag-of-words random projection of :mod:`benchmarks.common.synthetic_corpus`
over this text (no model at benchmark time). Such vectors are close to orthogonal in 384 dimensions,
which makes approximate search harder than on a real model's embeddings.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.common.paths import default_locomo_path
from benchmarks.common.synthetic_corpus import DEFAULT_DIMENSION, Corpus, WordProjection
from zenbrain.text import tokenize

__all__ = ["load_turns", "make_locomo_corpus", "vary"]

_NUMBER = re.compile(r"\d+")
_FIRST_NAMES = [
    "Aaron",
    "Abby",
    "Adam",
    "Aisha",
    "Alan",
    "Alba",
    "Alex",
    "Alice",
    "Amir",
    "Ana",
    "Andre",
    "Anika",
    "Anna",
    "Arjun",
    "Ben",
    "Bianca",
    "Carla",
    "Carlos",
    "Chen",
    "Chloe",
    "Chris",
    "Clara",
    "Dana",
    "Daniel",
    "Dara",
    "Diego",
    "Elena",
    "Eli",
    "Emil",
    "Emma",
    "Erik",
    "Eva",
    "Farah",
    "Felix",
    "Finn",
    "Gina",
    "Grace",
    "Hana",
    "Hannah",
    "Hugo",
    "Ida",
    "Imani",
    "Ines",
    "Ivan",
    "Jada",
    "Jamal",
    "Jana",
    "Jonas",
    "Jules",
    "Kai",
    "Kara",
    "Kenji",
    "Lara",
    "Leah",
    "Leo",
    "Lena",
    "Liam",
    "Lina",
    "Lucas",
    "Luis",
    "Maya",
    "Mei",
    "Mila",
    "Nadia",
    "Nina",
    "Noah",
    "Nora",
    "Olga",
    "Omar",
    "Oscar",
    "Paul",
    "Priya",
    "Quinn",
    "Rafael",
    "Rita",
    "Rosa",
    "Ruth",
    "Sam",
    "Sara",
    "Sofia",
    "Tariq",
    "Tess",
    "Theo",
    "Uma",
    "Vera",
    "Wei",
    "Yara",
    "Yusuf",
    "Zoe",
]


def load_turns(path: Path) -> tuple[list[str], list[str], list[str]]:
    """``(memories, questions, people)`` of a LoCoMo file, in file order."""
    data = json.loads(path.read_text(encoding="utf-8"))
    memories: list[str] = []
    questions: list[str] = []
    people: set[str] = set()
    for sample in data:
        chat = sample["conversation"]
        people.update(str(chat[k]) for k in ("speaker_a", "speaker_b") if k in chat)
        sessions = sorted(
            (k for k, v in chat.items() if k.startswith("session_") and isinstance(v, list)),
            key=lambda k: int(k.split("_")[1]),
        )
        for session in sessions:
            for turn in chat[session]:
                text = str(turn.get("text", "")).strip()
                if text:
                    memories.append(f"{turn['speaker']}: {text}")
        questions += [str(qa["question"]) for qa in sample.get("qa", []) if qa.get("question")]
    return memories, questions, sorted(people)


def vary(text: str, people: Sequence[str], rng: random.Random) -> str:
    """One seeded variation of ``text`` (see the module docstring)."""
    names = {person: rng.choice(_FIRST_NAMES) for person in people}
    words = text.split(" ")
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        bare = word.strip(".,!?:;'\"")
        stem = bare.removesuffix("'s").removesuffix("’s")
        if stem in names:
            out.append(word.replace(stem, names[stem], 1))
        elif _NUMBER.search(word):
            out.append(
                _NUMBER.sub(
                    lambda m: str(rng.randrange(10 ** (len(m.group()) - 1), 10 ** len(m.group()))),
                    word,
                )
            )
        elif len(out) > 1 and rng.random() < 0.2:
            if rng.random() < 0.5 or i + 1 >= len(words):
                pass  # dropped
            else:
                out += [words[i + 1], word]
                i += 1
        else:
            out.append(word)
        i += 1
    return " ".join(out)


def _vocabulary(texts: Sequence[str]) -> list[str]:
    seen: dict[str, None] = {}
    for text in texts:
        for term in tokenize(text):
            seen.setdefault(term, None)
    return list(seen)


def make_locomo_corpus(
    memories: int,
    queries: int,
    *,
    extra: int = 0,
    seed: int = 7,
    dimension: int = DEFAULT_DIMENSION,
    path: Path | None = None,
) -> Corpus:
    """``memories`` memory texts (the turns first, then seeded variations), ``extra``
    held-out variations for single-store timing and ``queries`` varied questions, with
    their vectors. The same arguments always give the same corpus."""
    turns, questions, people = load_turns(path or default_locomo_path())
    rng = random.Random(seed)

    def texts(base: Sequence[str], count: int, first_plain: bool) -> list[str]:
        made: list[str] = []
        for position in range(count):
            text = base[position % len(base)]
            if position >= len(base) or not first_plain:
                text = vary(text, people, rng)
            made.append(text)
        return made

    memory_texts = texts(turns, memories, True)
    extra_texts = texts(turns, extra, False)
    query_texts = texts(questions, queries, False)
    vocabulary = _vocabulary([*memory_texts, *extra_texts, *query_texts, *_FIRST_NAMES])
    projection = WordProjection(vocabulary, dimension, seed)

    def vectors(batch: Sequence[str]) -> np.ndarray:
        blocks = [np.zeros((0, dimension), dtype=np.float32)]
        for begin in range(0, len(batch), 50_000):
            ids = [
                np.array([projection.index[t] for t in tokenize(text)], dtype=np.int64)
                for text in batch[begin : begin + 50_000]
            ]
            blocks.append(projection.embed_word_ids(ids))
        return np.concatenate(blocks)

    return Corpus(
        memories=memory_texts,
        extra=extra_texts,
        queries=query_texts,
        memory_vectors=vectors(memory_texts),
        extra_vectors=vectors(extra_texts),
        query_vectors=vectors(query_texts),
        projection=projection,
        seed=seed,
    )
