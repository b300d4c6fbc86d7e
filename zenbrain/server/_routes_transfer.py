"""``/v1`` routes that move memories in and out (JSONL export and import, the archive,
OKF, other systems' files through :mod:`zenbrain.exchange`, backups) and the five memory
tools (``zenbrain.tools``), one route each, with the schemas those publish."""

from __future__ import annotations

import asyncio
import io
import json
import os
import tempfile
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.background import BackgroundTask
from starlette.responses import FileResponse, Response, StreamingResponse

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.exchange import (
    IMPORT_FORMATS,
    detect_format,
    export_archive,
    export_okf,
    export_rows,
    import_file,
    read_rows,
    split_import,
)
from zenbrain.server._access import Caller, Memory
from zenbrain.server._models import ImportResponse
from zenbrain.server._problems import AccessDenied, SafeJSONResponse
from zenbrain.tools import TOOLS, adispatch
from zenbrain.types import SEARCHED_LAYERS

__all__ = ["router", "tools_router"]

router = APIRouter(tags=["transfer"])
tools_router = APIRouter(tags=["tools"])
_LONG_TERM = (*SEARCHED_LAYERS, "core")
_NDJSON = "application/x-ndjson"
_ZIP = "application/zip"
_EXPORT_FORMATS = ("jsonl", "archive", "okf")


async def _rows(memory: MemoryCoordinator, layers: list[str] | None) -> AsyncIterator[bytes]:
    # Read by key a page at a time, as `zenbrain export` reads (each page in a worker thread).
    rows = export_rows(memory, layers, None)
    while (row := await asyncio.to_thread(next, rows, None)) is not None:
        yield (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")


def _zipped(memory: MemoryCoordinator, fmt: str, embeddings: bool) -> bytes:
    """The archive, or the OKF folder zipped, as bytes."""
    if fmt == "archive":
        out = io.BytesIO()
        export_archive(memory, out, embeddings=embeddings)
        return out.getvalue()
    import shutil

    folder = tempfile.mkdtemp(prefix="zenbrain-okf-")
    try:
        export_okf(memory, os.path.join(folder, "okf"))
        written = shutil.make_archive(
            os.path.join(folder, "okf"), "zip", os.path.join(folder, "okf")
        )
        with open(written, "rb") as packed:
            return packed.read()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@router.get(
    "/export",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {
                _NDJSON: {"schema": {"type": "string"}},
                _ZIP: {"schema": {"type": "string", "format": "binary"}},
            }
        }
    },
)
async def export(
    memory: Memory,
    layer: Annotated[list[str] | None, Query(max_length=4)] = None,
    format: Annotated[str, Query(description="jsonl, archive (a zip), or okf (a zip)")] = "jsonl",
    embeddings: bool = True,
) -> Response:
    """This namespace's memories as JSON lines, oldest first, streamed (the rows of
    ``zenbrain export``; ``POST /v1/import`` reads them back); ``format=archive``: the
    lossless zenbrain archive as a zip (``embeddings=false`` leaves the vectors out);
    ``format=okf``: the OKF Markdown folder as a zip."""
    if format not in _EXPORT_FORMATS:
        raise InvalidInputError(
            f"format must be one of {', '.join(_EXPORT_FORMATS)}, got {format[:40]!r}"
        )
    if format != "jsonl":
        if layer:
            raise InvalidInputError(f"format={format} exports the whole namespace: drop layer")
        data = await asyncio.to_thread(_zipped, memory, format, embeddings)
        name = f"zenbrain-{memory.namespace}-{format}.zip".replace("/", "_")
        return Response(
            data,
            media_type=_ZIP,
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )
    layers = list(dict.fromkeys(layer)) if layer else None
    for name in layers or ():
        if name not in _LONG_TERM:
            raise InvalidInputError(f"layer must be one of {', '.join(_LONG_TERM)}, got {name!r}")
    await memory.ahealth()  # a failing store answers with its error, before streaming starts
    return StreamingResponse(_rows(memory, layers), media_type=_NDJSON)


@router.post(
    "/import",
    response_model=ImportResponse,
    status_code=201,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {_NDJSON: {"schema": {"type": "string"}}},
        }
    },
)
async def import_(
    request: Request,
    memory: Memory,
    format: Annotated[
        str | None,
        Query(description="jsonl, archive, mem0, letta, mcp-memory or cogx; default: detected"),
    ] = None,
    dry_run: bool = False,
) -> Response | ImportResponse:
    """Store JSON lines (``zenbrain export``'s rows, or strings), all or none; core blocks
    keep their labels. Imported memories get new ids. With ``format`` (or detected from the
    body): a zenbrain archive (zip), mem0 JSON, a Letta agent file, the MCP memory server's
    JSONL or a COGX .tar.gz, answered with the import's report; ``dry_run=true`` checks
    everything and stores nothing (200)."""
    raw = await request.body()
    if format is not None and format not in ("jsonl", *IMPORT_FORMATS):
        raise InvalidInputError(
            f"format must be one of jsonl, {', '.join(IMPORT_FORMATS)}, got {format[:40]!r}"
        )
    foreign = format if format in IMPORT_FORMATS else None
    if format is None:
        foreign = await asyncio.to_thread(detect_format, raw)
    if foreign is not None or dry_run:
        if foreign is None:  # a dry run of JSON lines: checked, counted
            rows = await asyncio.to_thread(read_rows, io.StringIO(_utf8(raw)), "jsonl")
            others, core = split_import(rows)
            counts = {"memories": len(others) + len(core)}
            return SafeJSONResponse({"format": "jsonl", "dry_run": True, "counts": counts})
        report = await asyncio.to_thread(import_file, memory, raw, foreign, dry_run=dry_run)
        return SafeJSONResponse(report.to_dict(), status_code=200 if dry_run else 201)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"an import is UTF-8 JSON lines; byte {exc.start} is not") from exc
    rows = await asyncio.to_thread(read_rows, io.StringIO(text), "jsonl")
    others, core = split_import(rows)  # every row checked before anything is written
    ids = await memory.astore_many(others) if others else []
    for label, content in core:
        ids.append((await memory.aset_core_block(label, content)).id)
    return ImportResponse(imported=len(ids), ids=ids)


@router.get(
    "/backup",
    response_class=FileResponse,
    responses={200: {"content": {"application/octet-stream": {"schema": {"type": "string"}}}}},
)
async def backup(request: Request, memory: Memory) -> Response:
    """A consistent copy of the whole store, downloaded (a SQLite file, or pg_dump's SQL).
    Only for a caller that may read every namespace."""
    who: Caller = request.state.caller
    if not who.whole_store:
        raise AccessDenied(
            "a backup copies every namespace of the store; this API key opens only part of "
            "it (use a key made with `zenbrain keys add '' --prefix`)"
        )
    db = memory.database
    if db.dialect == "sqlite" and db.path is None:
        raise InvalidInputError("an in-memory store has no file to back up")
    suffix = ".db" if db.dialect == "sqlite" else ".sql"
    folder = tempfile.mkdtemp(prefix="zenbrain-backup-")
    target = os.path.join(folder, f"zenbrain-backup{suffix}")
    written = await memory.abackup(target)

    def remove() -> None:
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)

    return FileResponse(
        written,
        filename=os.path.basename(target),
        media_type="application/octet-stream",
        background=BackgroundTask(remove),
    )


def _utf8(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"an import is UTF-8 JSON lines; byte {exc.start} is not") from exc


def _tool_route(name: str, parameters: dict[str, Any], output: dict[str, Any]) -> None:
    async def call(request: Request, memory: Memory) -> Response:
        raw = await request.body()
        arguments = raw.decode("utf-8", errors="replace") if raw.strip() else None
        result = await adispatch(memory, name, arguments)
        error = result.get("error") if isinstance(result, dict) else None
        if isinstance(error, dict):
            from zenbrain.server._problems import problem

            return problem(422, str(error.get("type")), str(error.get("message")), request.url.path)
        return SafeJSONResponse(result)

    tool = next(t for t in TOOLS if t.name == name)
    tools_router.add_api_route(
        f"/tools/{name}",
        call,
        methods=["POST"],
        name=name,
        summary=tool.title,
        description=tool.description,
        response_class=SafeJSONResponse,
        openapi_extra={
            "requestBody": {
                "required": False,
                "content": {"application/json": {"schema": parameters}},
            },
            "responses": {
                "200": {"description": "The tool's result.", "content": {
                    "application/json": {"schema": output}}},
            },
        },
    )  # fmt: skip


for _tool in TOOLS:
    _tool_route(_tool.name, _tool.parameters, _tool.output_schema)
