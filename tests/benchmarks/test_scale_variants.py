"""The scale benchmark's growth curve and zenbrain variants on tiny runs: the rate of every
batch, a row with ``supersession=False``, and a baseline row whose zenbrain is imported from
another tree in a child process. Timings are never asserted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks.common.paths import REPO_ROOT
from benchmarks.scale import harness as scale
from benchmarks.scale.__main__ import build_parser, main
from benchmarks.scale.baseline import Baseline, parse_baseline
from benchmarks.scale.growth import first_to_last, growth_table, tenth_rates, variant_table
from benchmarks.scale.report import markdown_section
from benchmarks.scale.results import ScaleRun, load_results, save_results
from benchmarks.scale.systems import Latencies, Measurement, RunSettings
from benchmarks.scale.tables import SUPERSESSION_OFF, row_keys
from benchmarks.scale.targets import check_targets

TINY = RunSettings(batch_size=20, single_stores=4, queries=8, warmup=2, progress=False)


@pytest.fixture(scope="module")
def copied_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tree holding a copy of this checkout's zenbrain package, as a worktree would."""
    tree = tmp_path_factory.mktemp("older") / "tree"
    shutil.copytree(
        REPO_ROOT / "zenbrain", tree / "zenbrain", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tree


@pytest.fixture(scope="module")
def variant_run(copied_tree: Path) -> ScaleRun:
    return scale.run_benchmark(
        sizes=[200],
        backends=["sqlite"],
        peers=["fts5"],
        floor_sizes=[],
        profile_size=None,
        settings=TINY,
        modes=["lexical"],
        supersession_off=True,
        baseline=Baseline(copied_tree, "older"),
        command="python -m benchmarks scale --sizes 200 (test)",
    )


def test_every_batch_rate_is_kept_and_taken_a_tenth_at_a_time(variant_run: ScaleRun) -> None:
    for m in variant_run.measurements:
        assert len(m.batch_rates) == 200 // TINY.batch_size, m.label
        assert all(rate > 0 for rate in m.batch_rates)
        tenths = tenth_rates(m.batch_rates)
        assert len(tenths) == 10 and tenths == pytest.approx(m.batch_rates)
    table = growth_table(variant_run)
    assert table[0].startswith("| memories/s per tenth of the load | size | 1 |")
    assert len(table) == 2 + len(row_keys(variant_run))


def test_tenths_are_memories_over_seconds() -> None:
    # Twenty batches of one size: the first tenth at 100/s and 300/s, the last at 50/s.
    rates = [100.0, 300.0] + [200.0] * 16 + [50.0, 50.0]
    tenths = tenth_rates(rates)
    assert tenths[0] == pytest.approx(150.0)  # 2 batches in 1/100 + 1/300 of a second each
    assert tenths[-1] == pytest.approx(50.0)
    assert first_to_last(rates) == pytest.approx(3.0)
    assert tenth_rates([1.0] * 9) == [] and first_to_last([1.0] * 9) is None


def test_variants_sit_beside_the_defaults(variant_run: ScaleRun, copied_tree: Path) -> None:
    systems = [m.system for m in variant_run.measurements]
    assert systems == ["zenbrain", SUPERSESSION_OFF, "zenbrain@older", "fts5"]
    off, older = variant_run.measurements[1:3]
    assert off.label == "zenbrain sqlite lexical, supersession=False"
    assert older.label == "zenbrain sqlite lexical, older"
    for m in (off, older):
        assert m.recall.count == TINY.queries and m.single.count == TINY.single_stores
        assert m.batch_rate and m.bytes_on_disk and m.rss_growth_bytes
        assert m.recall_process_rss_bytes  # the probe ran with the row's own zenbrain
    # The child imported the other tree's zenbrain, not this checkout's.
    assert f"zenbrain imported from {copied_tree.resolve() / 'zenbrain'}" in older.notes
    assert variant_run.settings["supersession_off"] is True
    assert variant_run.settings["baseline"]["label"] == "older"
    table = variant_table(variant_run)
    assert "defaults ÷ supersession=False" in table[0] and "defaults ÷ older" in table[0]
    assert table[2].startswith("| 200, sqlite, lexical |")
    section = markdown_section(variant_run)
    assert "### Store throughput as the store fills" in section
    assert "| zenbrain sqlite lexical, older |" in section


def test_variants_and_batch_rates_survive_the_results_file(
    variant_run: ScaleRun, tmp_path: Path
) -> None:
    path = tmp_path / "results.json"
    save_results(variant_run, path)
    loaded = load_results(path)
    assert [m.batch_rates for m in loaded.measurements] == [
        m.batch_rates for m in variant_run.measurements
    ]
    assert markdown_section(loaded) == markdown_section(variant_run)


def test_a_failing_baseline_is_skipped(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    (broken / "zenbrain").mkdir(parents=True)
    (broken / "zenbrain" / "__init__.py").write_text("raise ImportError('not this one')\n")
    run = scale.run_benchmark(
        sizes=[40],
        backends=["sqlite"],
        peers=[],
        floor_sizes=[],
        profile_size=None,
        settings=TINY,
        modes=["lexical"],
        baseline=parse_baseline(f"{broken}=broken"),
    )
    assert [m.system for m in run.measurements] == ["zenbrain"]


def _store(system: str, mode: str, size: int, rate: float, p50_ms: float) -> Measurement:
    backend = "disk" if system == "chroma" else "sqlite"
    m = Measurement(system, backend, mode, size, batch_rate=rate)
    m.recall = Latencies([p50_ms / 1000] * 3)
    return m


def test_issue_39_targets_state_the_measured_ratios() -> None:
    run = ScaleRun(command="x", started="now", seconds=1.0, machine={}, settings={})
    slowing = _store("zenbrain", "lexical", 1_000_000, 20_000.0, 2.0)
    slowing.batch_rates = [20_000.0] * 900 + [10_000.0] * 100  # the last tenth at half
    run.measurements = [
        _store("zenbrain", "lexical", 100_000, 19_000.0, 1.0),
        _store(SUPERSESSION_OFF, "lexical", 100_000, 20_000.0, 1.0),
        _store("zenbrain", "hybrid", 100_000, 15_000.0, 4.0),
        _store(SUPERSESSION_OFF, "hybrid", 100_000, 20_000.0, 4.0),
        _store("chroma", "vector", 100_000, 1_600.0, 2.0),
        slowing,
    ]
    checks = {c.target: c for c in check_targets(run)}
    chroma = checks["store_many ≥ 10× ChromaDB's adds, SQLite lexical, 100k"]
    assert chroma.met is True and "(11.9×)" in chroma.measured
    assert checks["store_many ≥ 10× ChromaDB's adds, SQLite hybrid, 100k"].met is False
    off = "store_many ≥ 0.9× its rate with supersession=False, SQLite {}, 100k"
    assert checks[off.format("lexical")].met is True
    hybrid_off = checks[off.format("hybrid")]
    assert hybrid_off.met is False and "(0.75×)" in hybrid_off.measured
    recall = checks["hybrid recall p50 ≤ 1.5× ChromaDB's, SQLite, 100k"]
    assert recall.met is False and "(2.00×)" in recall.measured
    growth = next(c for t, c in checks.items() if t.startswith("store_many's rate holds"))
    assert growth.met is False and "(2.00×)" in growth.measured and "lexical, 1M" in growth.target
    run.measurements.pop()
    unmeasured = next(c for c in check_targets(run) if c.target.startswith("store_many's rate"))
    assert unmeasured.met is None


def test_command_line_takes_a_baseline_tree(copied_tree: Path) -> None:
    parser = build_parser()
    args = parser.parse_args(["--baseline", f"{copied_tree}=before", "--supersession-off"])
    assert args.baseline == Baseline(copied_tree.resolve(), "before")
    assert args.supersession_off is True
    assert parser.parse_args([]).baseline is None
    # Without a label: the short commit of a git tree, else the folder's name.
    assert parse_baseline(str(copied_tree)).label == "tree"
    assert len(parse_baseline(str(REPO_ROOT)).label) >= 7
    with pytest.raises(SystemExit):
        parser.parse_args(["--baseline", str(copied_tree.parent / "nowhere")])


def test_several_results_files_make_one_report(
    variant_run: ScaleRun, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    million = ScaleRun(
        command="python -m benchmarks scale --sizes 1000000 (test)",
        started="later",
        seconds=2.0,
        machine={},
        settings={"sizes": [1_000_000], "backends": ["postgres"], "peers": []},
    )
    loaded = Measurement("zenbrain", "postgres", "hybrid", 1_000_000, batch_rate=3000.0)
    loaded.batch_rates = [3000.0] * 1000
    loaded.recall = Latencies([0.012] * 3)
    million.measurements = [loaded]
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    save_results(variant_run, first)
    save_results(million, second)
    plot = tmp_path / "both.png"
    assert main(["--from-results", str(first), str(second), "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "| zenbrain postgres hybrid | 1M |" in out  # the growth table holds both runs
    assert "| zenbrain sqlite lexical | 200 |" in out
    assert "recall p50 ≤ 20 ms, hybrid, PostgreSQL + HNSW, 1M | 12.0 ms | yes" in out
    assert "(test); python -m benchmarks scale --sizes 1000000 (test)" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
