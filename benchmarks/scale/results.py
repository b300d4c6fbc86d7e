"""The raw numbers of one scale run and their JSON file (``docs/scale-results.json``), apart
from the runner and the report so neither imports the other."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.scale.profiling import PathProfile, ProfileEntry, ProfileReport
from benchmarks.scale.systems import Measurement

__all__ = ["ScaleRun", "load_results", "merge_runs", "save_results"]


@dataclass
class ScaleRun:
    """Everything one run measured, plus the facts needed to read it."""

    command: str
    started: str
    seconds: float
    machine: dict[str, str]
    settings: dict[str, Any]
    measurements: list[Measurement] = field(default_factory=list)
    profile: ProfileReport | None = None


def save_results(run: ScaleRun, path: Path) -> None:
    data = {
        "command": run.command,
        "started": run.started,
        "seconds": run.seconds,
        "machine": run.machine,
        "settings": run.settings,
        "measurements": [m.to_json() for m in run.measurements],
        "profile": asdict(run.profile) if run.profile else None,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def load_results(path: Path) -> ScaleRun:
    data = json.loads(path.read_text(encoding="utf-8"))
    profile = None
    if data.get("profile"):
        raw = data["profile"]
        profile = ProfileReport(
            size=raw["size"],
            paths=[
                PathProfile(
                    name=p["name"],
                    operations=p["operations"],
                    mean_ms=p["mean_ms"],
                    entries=[ProfileEntry(**e) for e in p["entries"]],
                    zenbrain_entries=[ProfileEntry(**e) for e in p.get("zenbrain_entries", [])],
                )
                for p in raw["paths"]
            ],
            blas_default_p50_ms=raw.get("blas_default_p50_ms"),
            blas_single_p50_ms=raw.get("blas_single_p50_ms"),
        )
    return ScaleRun(
        command=data["command"],
        started=data["started"],
        seconds=data["seconds"],
        machine=data["machine"],
        settings=data["settings"],
        measurements=[Measurement.from_json(m) for m in data["measurements"]],
        profile=profile,
    )


def merge_runs(runs: list[ScaleRun]) -> ScaleRun:
    """Several runs' measurements in one report (the one-million runs are one back end
    each): the first run's machine facts and settings, every run's command."""
    first = runs[0]
    if len(runs) == 1:
        return first
    settings = dict(first.settings)
    for key in ("sizes", "backends", "peers"):
        merged = [v for run in runs for v in run.settings.get(key, [])]
        settings[key] = sorted(set(merged)) if key == "sizes" else list(dict.fromkeys(merged))
    return ScaleRun(
        command="; ".join(dict.fromkeys(run.command for run in runs)),
        started=first.started,
        seconds=sum(run.seconds for run in runs),
        machine=first.machine,
        settings=settings,
        measurements=[m for run in runs for m in run.measurements],
        profile=next((run.profile for run in runs if run.profile), None),
    )
