"""zenbrain end to end on the embedded SQLite default, offline.

Stores a short conversation, recalls across layers, consolidates, and shows health and the
review queue. Run with ``make demo`` (or ``python examples/demo.py [path/to/memory.db]``).
"""

from __future__ import annotations

import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from zenbrain import MemoryCoordinator


def show(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 66 - len(title)))


def main(db_path: str | None = None) -> None:
    workdir = tempfile.mkdtemp(prefix="zenbrain-demo-")
    path = Path(db_path) if db_path else Path(workdir) / "memory.db"
    three_days_ago = datetime.now(UTC) - timedelta(days=3)
    with MemoryCoordinator(path, namespace="anna") as memory:
        show(f"Storing a conversation in {path}")
        memory.start_session("monday-chat")
        conversation = [
            ("user", "Hi! I'm Anna, I work on the payments team in Kiel."),
            ("assistant", "Nice to meet you, Anna. How can I help?"),
            ("user", "I am absolutely thrilled — my talk on pgvector got accepted!"),
            (
                "user",
                "How to deploy the payments service:\n"
                "1. run the tests\n2. build the image\n3. tag the release",
            ),
            ("user", "Our staging database is PostgreSQL 17 with pgvector."),
        ]
        for role, text in conversation:
            memory.add_interaction(role, text)
            if role == "user":
                memory_id = memory.store(text, context="work")
                print(f"  stored {memory.get(memory_id).layer:<10} {text.splitlines()[0][:58]}")
        memory.store("Anna prefers short answers with code samples.", confidence=0.95)
        memory.set_core_block("persona", "Anna, payments engineer in Kiel; likes concise answers.")
        memory.store("The team's sprint review is every second Friday.", created_at=three_days_ago)
        memory.store("Lunch at the Kieler Förde canteen is at noon.", created_at=three_days_ago)

        # Core blocks are scored like any memory; by default every block comes back (one that
        # shares no word with the query with score 0); core="matching" keeps only the sharing.
        for query, core in (
            ("how do I deploy payments", "always"),
            ("Kieler Foerde lunch", "matching"),
            ("what database do we use", "matching"),
        ):
            show(f"recall({query!r}, core={core!r})")
            for r in memory.recall(query, limit=4, core=core):
                first_line = r.content.splitlines()[0][:52]
                print(f"  {r.score:4.2f}  {r.layer:<10}  {first_line}")

        show("consolidate()")
        report = memory.consolidate()
        print(
            f"  promoted {report.promoted} episode(s) to facts, decayed {report.decayed} "
            f"working slot(s), pruned {report.pruned}"
        )

        show("health()")
        for layer, counts in memory.health().to_dict().items():
            print(f"  {layer:<14} " + ", ".join(f"{k}={v}" for k, v in counts.items()))

        show("review_queue()")
        for item in memory.review_queue():
            print(f"  due {item.due:%Y-%m-%d %H:%M}  {item.content}")
            memory.record_review(item.id, 3)
        print(f"  after grading them 'good': {len(memory.review_queue())} due now")

        show("core_context() — ready for a system prompt")
        print("  " + memory.core_context().replace("\n", "\n  "))
        print(f"\nThe memory lives in {path}; open it again and it is all still there.")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
