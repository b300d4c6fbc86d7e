"""Memory that can move: a lossless archive of a namespace, importers from other memory
systems, and Markdown out.

- :func:`export_archive` / :func:`import_archive`: the zenbrain archive (a folder or a zip:
  ``manifest.json`` and one JSON-lines file per kind of row), which keeps ids, times,
  validity and replaced-by chains, consolidation links, FSRS cards, procedures, core blocks,
  sessions, cross-context entities, the stages' rows and, optionally, the embeddings.
- :func:`import_file`: mem0, Letta Agent File, MCP memory server and COGX files, the format
  named or detected (:func:`detect_format`).
- :func:`export_okf`: an Open Knowledge Format folder, one Markdown file per memory.

The guide: ``docs/guide/exchange.md``. Every import checks everything first and writes in
one transaction (all or nothing); ``dry_run=True`` reports what would be stored.
"""

from zenbrain.exchange.archive_export import ExportReport, export_archive
from zenbrain.exchange.archive_import import ImportReport, import_archive
from zenbrain.exchange.importers import IMPORT_FORMATS, detect_format, import_file
from zenbrain.exchange.okf import export_okf

__all__ = [
    "IMPORT_FORMATS",
    "ExportReport",
    "ImportReport",
    "detect_format",
    "export_archive",
    "export_okf",
    "import_archive",
    "import_file",
]
