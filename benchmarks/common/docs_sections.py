"""Replacing one ``## `` section of ``docs/benchmarks.md`` and leaving the rest alone, so
each benchmark rewrites only its own numbers."""

from __future__ import annotations

__all__ = ["DOCS_TITLE", "replace_section"]

DOCS_TITLE = "# Benchmarks"


def replace_section(document: str, section: str, heading: str) -> str:
    """Put ``section`` in place of the ``heading`` section of ``document``, or append it.

    The old section runs from its heading line to the next level-2 heading outside a code
    fence (or the end); everything else is kept byte for byte.
    """
    lines = document.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == heading), None)
    body = section if section.endswith("\n") else section + "\n"
    if start is None:
        if not document.strip():
            return f"{DOCS_TITLE}\n\n{body}"
        return document.rstrip("\n") + "\n\n" + body
    end = len(lines)
    in_fence = False
    for i in range(start + 1, len(lines)):
        if lines[i].lstrip().startswith("```"):
            in_fence = not in_fence
        elif not in_fence and lines[i].startswith("## "):
            end = i
            break
    tail = lines[end:]
    if tail:
        body += "\n"  # keep a blank line before the next section's heading
    return "".join(lines[:start]) + body + "".join(tail)
