"""The ``zenbrain`` command group and ``main``: exit statuses, errors and closed pipes."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click

from zenbrain import __version__
from zenbrain.cli import _admin, _encryption, _memories, _server, _transfer
from zenbrain.cli._options import EXIT_NOT_FOUND, EXIT_OK, global_options
from zenbrain.cli._output import emit_error
from zenbrain.config import DB_ENV, EMBEDDER_ENV, KEY_ENV, KEY_FILE_ENV
from zenbrain.errors import ZenbrainError

__all__ = ["cli", "main"]

_EPILOG = f"""\b
Environment:
  {DB_ENV}         the store, when --db is not given (default ./zenbrain.db)
  {EMBEDDER_ENV}   the embedder, when --embedder is not given
  {KEY_ENV}        the passphrase of an encrypted store ({KEY_FILE_ENV}: a file holding it)
\b
Exit status: 0 done; 1 not found or refused (no such memory or store, a bad value);
2 usage error (unknown command or option, missing argument).
"""


@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=_EPILOG,
)
@click.version_option(__version__, "-V", "--version", prog_name="zenbrain")
@global_options
def cli() -> None:
    """Seven-layer memory for LLM agents, from the shell.

    Store and recall memories, review facts, manage core blocks, sessions and namespaces,
    and move memories in and out (export, import, backup).
    """


for _module in (_memories, _transfer, _admin, _encryption, _server):
    for _command in _module.COMMANDS:
        cli.add_command(_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 done, 1 not found or refused,
    2 usage error)."""
    args = list(sys.argv[1:] if argv is None else argv)
    status = EXIT_OK
    try:
        try:
            result = cli.main(args, prog_name="zenbrain", standalone_mode=False)
            status = result if isinstance(result, int) else EXIT_OK
        except click.exceptions.Exit as done:
            status = done.exit_code
        except click.ClickException as exc:
            exc.show()
            status = exc.exit_code
        except click.exceptions.Abort:
            click.echo("Aborted!", err=True)
            status = EXIT_NOT_FOUND
        except ZenbrainError as exc:
            emit_error(exc, as_json=_json_requested(args))
            status = EXIT_NOT_FOUND
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`zenbrain list | head -1`): stop quietly, as `cat` does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = EXIT_NOT_FOUND
    return status


def _json_requested(args: Sequence[str]) -> bool:
    # The context is gone once the command failed; the flag is in the arguments either way.
    return "--json" in args[: args.index("--") if "--" in args else len(args)]
