"""``python -m benchmarks knowledge``: every part of the knowledge-updates benchmark."""

from benchmarks.knowledge.updates import main

if __name__ == "__main__":
    raise SystemExit(main())
