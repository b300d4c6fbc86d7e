"""``python -m benchmarks [NAME [ARGS...]]``: list the benchmarks, or run one."""

from benchmarks.runner import main

if __name__ == "__main__":
    raise SystemExit(main())
