"""Races between processes on one store, on both back ends: consolidating at once, and
upserting the same core block label and session at once. Every call must succeed (or
raise a ZenbrainError, counted as a failure here), and the result must be exactly once."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from sqlalchemy import text

from zenbrain import MemoryCoordinator

CONSOLIDATOR = textwrap.dedent(
    """
    import sys
    from zenbrain import MemoryCoordinator
    failures = 0
    with MemoryCoordinator(sys.argv[1]) as memory:
        for _ in range(int(sys.argv[2])):
            try:
                memory.consolidate()
            except Exception as exc:
                failures += 1
                print(f"{type(exc).__name__}: {exc}"[:300], file=sys.stderr)
    print(failures)
    """
)

UPSERTER = textwrap.dedent(
    """
    import sys
    from zenbrain import MemoryCoordinator
    location, tag, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    failures = 0
    with MemoryCoordinator(location) as memory:
        for i in range(rounds):
            for call in (
                lambda: memory.set_core_block("persona", f"{tag} version {i}"),
                lambda: memory.start_session("shared-session"),
                lambda: memory.add_interaction("user", f"{tag} says {i}",
                                               session_id="shared-session"),
            ):
                try:
                    call()
                except Exception as exc:
                    failures += 1
                    print(f"{type(exc).__name__}: {exc}"[:300], file=sys.stderr)
    print(failures)
    """
)


def _run(script: str, args: list[list[str]]) -> tuple[int, list[str]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, *a],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for a in args
    ]
    failures, errors = 0, []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        failures += int(out.split()[-1])
        errors += [line for line in err.splitlines() if line.strip()]
    return failures, errors


@pytest.mark.slow
def test_two_processes_consolidating_at_once_promote_each_episode_once(
    store_location: str,
) -> None:
    episodes = 150
    with MemoryCoordinator(store_location) as memory:
        memory.store_many(
            [
                {"content": f"Episode {i}: the flood", "layer": "episodic", "emotional_weight": 0.9}
                for i in range(episodes)
            ]
        )
    failures, errors = _run(CONSOLIDATOR, [[store_location, "3"], [store_location, "3"]])
    assert (failures, errors[:3]) == (0, []), errors[:3]
    with MemoryCoordinator(store_location) as memory, memory.database.read() as conn:
        links = conn.execute(text("SELECT count(*) FROM zb_consolidation_links")).scalar_one()
        facts = conn.execute(
            text("SELECT count(*) FROM zb_memories WHERE source = 'consolidation'")
        ).scalar_one()
    assert links == episodes
    assert facts == episodes


@pytest.mark.slow
def test_concurrent_upserts_of_one_label_and_session_never_fail(store_location: str) -> None:
    processes, rounds = 4, 6
    MemoryCoordinator(store_location).close()
    failures, errors = _run(
        UPSERTER, [[store_location, f"p{n}", str(rounds)] for n in range(processes)]
    )
    assert (failures, errors[:3]) == (0, []), errors[:3]
    with MemoryCoordinator(store_location) as memory:
        blocks = memory.core_blocks()
        assert [b.label for b in blocks] == ["persona"]
        turns = memory.conversation(limit=1000, session_id="shared-session")
        assert len(turns) == processes * rounds
        with memory.database.read() as conn:
            sessions = conn.execute(
                text("SELECT count(*) FROM zb_sessions WHERE session_id = 'shared-session'")
            ).scalar_one()
        assert sessions == 1
