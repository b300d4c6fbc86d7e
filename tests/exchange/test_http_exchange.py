"""The archive, OKF and the importers over HTTP: ``GET /v1/export?format=archive|okf``
answers a zip, ``POST /v1/import`` takes it (or a mem0, Letta, MCP memory or COGX file,
detected or named) with a dry run, through a real server."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from tests.exchange.conftest import fill  # noqa: E402
from zenbrain import MemoryCoordinator  # noqa: E402
from zenbrain.server import create_app  # noqa: E402
from zenbrain.testing.server import running_server  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def served(store_location: str) -> Iterator[tuple[MemoryCoordinator, httpx.Client]]:
    with (
        MemoryCoordinator(store_location) as memory,
        running_server(create_app(memory)) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        yield memory, client


def test_archive_out_and_back_in(served: tuple[MemoryCoordinator, httpx.Client]) -> None:
    memory, client = served
    fill(memory.for_namespace("anna"))
    answer = client.get("/v1/export", params={"format": "archive", "namespace": "anna"})
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(answer.content)).namelist()
    assert "manifest.json" in names and "memories.jsonl" in names
    dry = client.post(
        "/v1/import", content=answer.content, params={"namespace": "copy", "dry_run": "true"}
    )
    assert dry.status_code == 200 and dry.json()["counts"]["memories"] == 8
    assert memory.for_namespace("copy").find() == []
    done = client.post("/v1/import", content=answer.content, params={"namespace": "copy"})
    assert done.status_code == 201, done.text
    assert done.json()["format"] == "archive" and done.json()["imported"] == 8
    assert not done.json()["ids_kept"]  # the ids are the store's already (namespace anna)
    again = client.get("/v1/export", params={"format": "archive", "namespace": "copy"})
    first, second = (zipfile.ZipFile(io.BytesIO(a.content)) for a in (answer, again))
    for name in names:
        if name != "manifest.json":
            assert len(first.read(name).splitlines()) == len(second.read(name).splitlines())
    contents = [
        sorted(json.loads(line)["content"] for line in archive.read("memories.jsonl").splitlines())
        for archive in (first, second)
    ]
    assert contents[0] == contents[1]


def test_okf_is_a_zip_of_markdown(served: tuple[MemoryCoordinator, httpx.Client]) -> None:
    memory, client = served
    fill(memory)
    answer = client.get("/v1/export", params={"format": "okf"})
    assert answer.status_code == 200
    names = zipfile.ZipFile(io.BytesIO(answer.content)).namelist()
    assert "index.md" in names and "log.md" in names
    assert any(name.startswith("semantic/") for name in names)


def test_other_systems_files(
    served: tuple[MemoryCoordinator, httpx.Client], tmp_path: Path
) -> None:
    memory, client = served
    letta = (FIXTURES / "customer_service.af").read_bytes()
    done = client.post("/v1/import", content=letta, params={"namespace": "cs"})
    assert done.status_code == 201 and done.json()["format"] == "letta"
    assert [b.label for b in memory.for_namespace("cs").core_blocks()] == ["human", "persona"]
    packed = shutil.make_archive(str(tmp_path / "cogx"), "gztar", FIXTURES / "cogx")
    done = client.post("/v1/import", content=Path(packed).read_bytes(), params={"namespace": "c"})
    assert done.status_code == 201 and done.json()["layers"]["semantic"] == 4
    graph = (FIXTURES / "mcp_memory.jsonl").read_bytes()
    done = client.post(
        "/v1/import", content=graph, params={"namespace": "g", "format": "mcp-memory"}
    )
    assert done.status_code == 201 and done.json()["imported"] == 5


def test_bad_input_is_a_problem(served: tuple[MemoryCoordinator, httpx.Client]) -> None:
    memory, client = served
    bad = b'{"results": [{"memory": "fine"}, {"memory": 7}]}'
    answer = client.post("/v1/import", content=bad, params={"format": "mem0"})
    assert answer.status_code == 422 and "results[1]: field 'memory'" in answer.text
    assert memory.find() == []
    assert client.get("/v1/export", params={"format": "xml"}).status_code == 422
    plain = client.post("/v1/import", content=b'{"content": "a"}\n', params={"dry_run": "true"})
    assert plain.status_code == 200 and plain.json()["counts"] == {"memories": 1}
    assert memory.find() == []
