"""The ``zenbrain`` command: memories, core blocks, sessions and namespaces from a shell.

Tables for people, ``--json`` for scripts. Exit status: 0 done; 1 not found or refused (no
such memory, no store at that path, a value out of range); 2 a usage error (unknown command
or option, missing argument). Heavy modules load only when a command needs a store, so
``zenbrain --help`` answers at once.
"""

from __future__ import annotations

from zenbrain.cli._main import main

__all__ = ["main"]
