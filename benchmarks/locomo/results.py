"""What a LoCoMo-style retrieval run produces: per-question outcomes, per-system results and
the run they belong to. Shared by the harness (:mod:`benchmarks.locomo`) and its report
(:mod:`benchmarks.locomo.report`), so neither imports the other's internals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from benchmarks.common.embeddings import EmbeddingStats
from benchmarks.locomo.data import CATEGORY_NAMES, RETRIEVAL_CATEGORIES

__all__ = ["BenchmarkRun", "CategoryRecall", "QuestionOutcome", "SystemResult", "tally"]


@dataclass(frozen=True, slots=True)
class QuestionOutcome:
    """One question as a system answered it: the dia_ids it returned, best first."""

    sample_id: str
    question: str
    category: int
    evidence: tuple[str, ...]
    retrieved: tuple[str, ...]

    @property
    def first_hit_rank(self) -> int | None:
        """1-based rank of the first evidence turn retrieved, None if none was."""
        evidence = set(self.evidence)
        for rank, dia_id in enumerate(self.retrieved, start=1):
            if dia_id in evidence:
                return rank
        return None

    def hit_at(self, k: int) -> bool:
        rank = self.first_hit_rank
        return rank is not None and rank <= k


@dataclass(frozen=True, slots=True)
class CategoryRecall:
    """Hits at each k among ``questions`` questions (category 0 stands for all of them)."""

    category: int
    questions: int
    hits: Mapping[int, int]

    @property
    def name(self) -> str:
        return CATEGORY_NAMES.get(self.category, "overall")

    def recall(self, k: int) -> float:
        return self.hits[k] / self.questions if self.questions else 0.0


def tally(category: int, outcomes: Sequence[QuestionOutcome], ks: Sequence[int]) -> CategoryRecall:
    return CategoryRecall(
        category=category,
        questions=len(outcomes),
        hits={k: sum(outcome.hit_at(k) for outcome in outcomes) for k in ks},
    )


@dataclass(frozen=True, slots=True)
class SystemResult:
    """A system's outcome on every question, and where its time went.

    ``skipped`` holds the reason when the system could not run; it then has no outcomes.
    ``embedding`` counts only this system's texts: model calls, cache hits, model seconds.
    """

    name: str
    ks: tuple[int, ...]
    outcomes: tuple[QuestionOutcome, ...] = ()
    index_seconds: float = 0.0
    search_seconds: float = 0.0
    embedding: EmbeddingStats = field(default_factory=EmbeddingStats)
    skipped: str | None = None

    @property
    def wall_seconds(self) -> float:
        return self.index_seconds + self.search_seconds

    def by_category(self) -> dict[int, CategoryRecall]:
        return {
            category: tally(category, [o for o in self.outcomes if o.category == category], self.ks)
            for category in RETRIEVAL_CATEGORIES
        }

    def overall(self) -> CategoryRecall:
        return tally(0, self.outcomes, self.ks)

    def recall(self, k: int, category: int | None = None) -> float:
        """Recall@k over all questions, or over one category's."""
        if category is None:
            return self.overall().recall(k)
        return self.by_category()[category].recall(k)


@dataclass(frozen=True, slots=True)
class BenchmarkRun:
    """Everything a report needs: per-system results and what they were measured on."""

    results: tuple[SystemResult, ...]
    conversations: tuple[str, ...]
    turns: int
    question_counts: Mapping[int, int]
    questions_without_evidence: int
    unresolved_evidence: int
    ks: tuple[int, ...]
    started_at: datetime
    cpu_count: int
    load_average: float | None = None  # 1-minute load when the run started (None off Unix)

    def result(self, name: str) -> SystemResult:
        for result in self.results:
            if result.name == name:
                return result
        raise KeyError(name)
