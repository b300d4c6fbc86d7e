"""Memory that can move: a lossless archive of a namespace, importers from other memory
systems, and Markdown out.

- :func:`export_archive` / :func:`import_archive`: the zenbrain archive (a folder or a zip:
  ``manifest.json`` and one JSON-lines file per kind of row), which keeps ids, times,
  validity and replaced-by chains, consolidation links, FSRS cards, procedures, core blocks,
  sessions, cross-context entities, the stages' rows and, optionally, the embeddings.
- :func:`import_file`: mem0, Letta Agent File, MCP memory server and COGX files, the format
  named or detected (:func:`detect_format`).
- :func:`export_okf`: an Open Knowledge Format folder, one Markdown file per memory.
- :func:`export_rows` / :func:`read_rows`: memories as JSONL or CSV rows of ``store()``'s
  fields (new ids on import), which the command line and the HTTP API share.

The guide: ``docs/guide/exchange.md``. Every import checks everything first and writes in
one transaction (all or nothing); ``dry_run=True`` reports what would be stored.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "IMPORT_FORMATS",
    "ROW_FIELDS",
    "ExportReport",
    "ImportReport",
    "detect_format",
    "export_archive",
    "export_okf",
    "export_row",
    "export_rows",
    "import_archive",
    "import_file",
    "read_rows",
    "split_import",
    "write_csv",
]

#: The formats :func:`import_file` reads.
IMPORT_FORMATS = ("archive", "mem0", "letta", "mcp-memory", "cogx")

# Loaded on first use: the command line imports this package to list the formats, and must
# start without SQLAlchemy and numpy (tests/cli/test_cli.py).
_MODULE_OF = {
    "ExportReport": "_archive_export",
    "export_archive": "_archive_export",
    "ImportReport": "_archive_import",
    "import_archive": "_archive_import",
    "detect_format": "_importers",
    "import_file": "_importers",
    "export_okf": "_okf",
    "ROW_FIELDS": "_rows",
    "export_row": "_rows",
    "export_rows": "_rows",
    "read_rows": "_rows",
    "split_import": "_rows",
    "write_csv": "_rows",
}

if TYPE_CHECKING:
    from zenbrain.exchange._archive_export import ExportReport, export_archive
    from zenbrain.exchange._archive_import import ImportReport, import_archive
    from zenbrain.exchange._importers import detect_format, import_file
    from zenbrain.exchange._okf import export_okf
    from zenbrain.exchange._rows import (
        ROW_FIELDS,
        export_row,
        export_rows,
        read_rows,
        split_import,
        write_csv,
    )


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'zenbrain.exchange' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"zenbrain.exchange.{module}"), name)
    globals()[name] = value
    return value
