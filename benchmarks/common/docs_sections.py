"""Replacing one ``## `` section of a docs page (most often ``docs/benchmarks.md``) and
leaving the rest alone, so each benchmark rewrites only its own numbers."""

from __future__ import annotations

from pathlib import Path

__all__ = ["DOCS_TITLE", "replace_section", "write_section"]

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


def write_section(path: Path, section: str, heading: str) -> None:
    """Replace (or add) the ``heading`` section of the markdown file at ``path`` (created
    with its folder when missing) by ``section``."""
    current = path.read_text(encoding="utf-8") if path.is_file() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(replace_section(current, section, heading), encoding="utf-8")
