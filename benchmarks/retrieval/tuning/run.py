"""The tuning run: every lexical variant, and with an embedder every fusion variant, ranking
every haystack of every dataset; recall@5, recall@10 and nDCG@10 per variant and dataset."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from benchmarks.common.embeddings import CachedEmbedder
from benchmarks.retrieval.datasets import Dataset, Haystack
from benchmarks.retrieval.metrics import ndcg_at, recall_at
from benchmarks.retrieval.tuning.fusion import FusionVariant
from benchmarks.retrieval.tuning.lexical import POOL, Index, LexicalVariant, best_first, tokenizer
from benchmarks.retrieval.tuning.variants import FUSION_VARIANTS, LEXICAL_VARIANTS

__all__ = ["DEPTH", "Tally", "TuningRun", "run_tuning"]

DEPTH = 10
# Sentences of unrelated topics: their mean pairwise cosine is the embedder's "unrelated"
# floor, as the coordinator calibrates it.
CALIBRATION = (
    "The invoice is due at the end of the month.",
    "Penguins live in the southern hemisphere.",
    "She practices the violin every evening.",
    "The server restarts after each deployment.",
    "Fresh basil makes the tomato sauce better.",
    "The train to Hamburg leaves at seven.",
)


# Questions with the sentence that answers them: their mean cosine is the embedder's
# "related" level, where a calibrated semantic score reaches 1.
CALIBRATION_PAIRS = (
    ("Where does Anna work?", "Anna works as a nurse at the city hospital."),
    ("What did Tom cook on Sunday?", "On Sunday Tom made a big pot of chili for the family."),
    ("When is the dentist appointment?", "My dentist appointment is next Tuesday at 9."),
    ("Which instrument does Maria play?", "Maria has played the cello since she was eight."),
    ("Why was Ben stressed?", "Ben felt stressed because of the deadline at work."),
    ("Wo wohnt Lena?", "Lena wohnt seit zwei Jahren in einer kleinen Wohnung in Kiel."),
)


@dataclass(frozen=True)
class Tally:
    recall5: float
    recall10: float
    ndcg10: float


def tally(rankings: list[tuple[list[str], tuple[str, ...]]]) -> Tally:
    n = len(rankings) or 1
    return Tally(
        sum(recall_at(r, e, 5) for r, e in rankings) / n,
        sum(recall_at(r, e, 10) for r, e in rankings) / n,
        sum(ndcg_at(r, e, 10) for r, e in rankings) / n,
    )


@dataclass
class TuningRun:
    datasets: list[str]
    lexical: dict[str, dict[str, Tally]]  # variant -> dataset -> tally
    fusion: dict[str, dict[str, Tally]]
    questions: dict[str, int]
    seconds: float
    fusion_questions: dict[str, int] = field(default_factory=dict)


def _haystack_rankings(
    haystack: Haystack,
    tokenize: Callable[[str], tuple[str, ...]],
    variants: Sequence[LexicalVariant],
    fusions: Sequence[FusionVariant],
    embed: tuple[np.ndarray, np.ndarray] | None,
    floor: float,
    chosen: LexicalVariant,
    ceiling: float = 1.0,
) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    index = Index.build(
        [tokenize(t.text) for t in haystack.turns],
        [t.session_datetime for t in haystack.turns],
        [f"session-{t.session}" for t in haystack.turns],
    )
    ids = [t.dia_id for t in haystack.turns]
    questions = haystack.scorable_questions()
    lexical_out: dict[str, list[Any]] = {v.name: [] for v in variants}
    fusion_out: dict[str, list[Any]] = {f.name: [] for f in fusions}
    for qi, question in enumerate(questions):
        terms = tokenize(question.question)
        for variant in variants:
            scores = variant.ranked(index, terms)
            lexical_out[variant.name].append(
                ([ids[d] for d in best_first(scores, DEPTH)], question.evidence)
            )
        if embed is None or not fusions:
            continue
        doc_matrix, query_matrix = embed
        sims = doc_matrix @ query_matrix[qi]
        top = np.argsort(-sims, kind="stable")[:POOL]
        cosines = {int(d): float(sims[d]) for d in top}
        lexical_by_known: dict[bool, dict[int, float]] = {}
        for known_only in {f.known_only for f in fusions}:
            found = replace(chosen, known_only=known_only).score(index, terms)
            lexical_by_known[known_only] = {d: found[d] for d in best_first(found, POOL)}
        for fusion in fusions:
            lexical = lexical_by_known[fusion.known_only]
            fused = fusion.fuse(lexical, cosines, floor, ceiling)
            if fusion.kind in ("convex", "calibrated"):
                fused = index.with_neighbours(fused, fusion.neighbours, chosen.gap)
                fused = index.with_conversation(fused, fusion.conversation)
            fusion_out[fusion.name].append(
                ([ids[d] for d in best_first(fused, DEPTH)], question.evidence)
            )
    return lexical_out, fusion_out


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def run_tuning(
    datasets: Sequence[Dataset],
    *,
    embedder: CachedEmbedder | None,
    lexical_variants: Sequence[LexicalVariant] = LEXICAL_VARIANTS,
    fusion_variants: Sequence[FusionVariant] = FUSION_VARIANTS,
    chosen: LexicalVariant | None = None,
    fusion_haystacks: Mapping[str, int] | None = None,
    progress: Any = None,
) -> TuningRun:
    """Every lexical variant on every haystack; the fusion variants (with an embedder) on
    every haystack too, or on the first ``fusion_haystacks[dataset]`` of a dataset."""
    started = time.perf_counter()
    chosen = chosen or LexicalVariant("default")
    floor, ceiling = 0.0, 1.0
    if embedder is not None:
        calibration = _unit(np.asarray(embedder.embed_documents(list(CALIBRATION))))
        sims = calibration @ calibration.T
        floor = float(np.clip(sims[~np.eye(len(CALIBRATION), dtype=bool)].mean(), -1, 0.95))
        asked = _unit(np.asarray(embedder.embed_queries([q for q, _ in CALIBRATION_PAIRS])))
        answers = _unit(np.asarray(embedder.embed_documents([a for _, a in CALIBRATION_PAIRS])))
        ceiling = float(np.clip((asked * answers).sum(axis=1).mean(), floor + 0.01, 1.0))
    tokenizers = {s: tokenizer(s) for s in {v.stemmer for v in lexical_variants}}
    lexical: dict[str, dict[str, Tally]] = {v.name: {} for v in lexical_variants}
    fusion: dict[str, dict[str, Tally]] = {f.name: {} for f in fusion_variants}
    questions: dict[str, int] = {}
    fusion_questions: dict[str, int] = {}
    for dataset in datasets:
        fused_haystacks = (fusion_haystacks or {}).get(dataset.name, len(dataset.haystacks))
        collected_lex: dict[str, list[Any]] = {v.name: [] for v in lexical_variants}
        collected_fus: dict[str, list[Any]] = {f.name: [] for f in fusion_variants}
        for position, haystack in enumerate(dataset.haystacks):
            embed = None
            if embedder is not None and position < fused_haystacks:
                fusion_questions[dataset.name] = fusion_questions.get(dataset.name, 0) + len(
                    haystack.scorable_questions()
                )
                docs = _unit(np.asarray(embedder.embed_documents([t.text for t in haystack.turns])))
                qs = [q.question for q in haystack.scorable_questions()]
                embed = (docs, _unit(np.asarray(embedder.embed_queries(qs))) if qs else docs[:0])
            for stemmer, tokenize in tokenizers.items():
                variants = [v for v in lexical_variants if v.stemmer == stemmer]
                fusions = fusion_variants if stemmer == chosen.stemmer else ()
                lex, fus = _haystack_rankings(
                    haystack, tokenize, variants, fusions, embed, floor, chosen, ceiling
                )
                for name, rows in lex.items():
                    collected_lex[name].extend(rows)
                for name, rows in fus.items():
                    collected_fus[name].extend(rows)
            if progress is not None:
                print(f"[tuning] {dataset.name} {haystack.haystack_id}", file=progress, flush=True)
        questions[dataset.name] = dataset.question_count()
        for name, rows in collected_lex.items():
            lexical[name][dataset.name] = tally(rows)
        for name, rows in collected_fus.items():
            if rows:
                fusion[name][dataset.name] = tally(rows)
    return TuningRun(
        [d.name for d in datasets],
        lexical,
        fusion,
        questions,
        time.perf_counter() - started,
        fusion_questions,
    )
