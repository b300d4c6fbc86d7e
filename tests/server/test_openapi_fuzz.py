"""schemathesis against /v1/openapi.json: every operation, with generated valid and hostile
(schema-breaking) input; nothing answers 5xx, and every answer matches its documented status,
content type and schema. Bounded to a few examples per operation so it runs in about a
minute."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.generation import GenerationMode

from zenbrain._coordinator import MemoryCoordinator
from zenbrain.server import create_app
from zenbrain.testing.server import running_server

EXAMPLES_PER_OPERATION = 6


@schemathesis.serializer("application/x-ndjson")
def _json_lines(ctx: object, value: object) -> bytes:
    """An import body: generated text as is, anything else as one JSON line per item."""
    if isinstance(value, str):
        return value.encode("utf-8", errors="surrogatepass")
    items = value if isinstance(value, list) else [value]
    return "\n".join(json.dumps(item) for item in items).encode("utf-8", errors="surrogatepass")


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[schemathesis.BaseSchema]:
    store = Path(tmp_path_factory.mktemp("fuzz")) / "memory.db"
    with MemoryCoordinator(str(store)) as memory, running_server(create_app(memory)) as url:
        memory.store("A fact the generated ids and queries can meet.", layer="semantic")
        memory.set_core_block("persona", "Anna")
        loaded = schemathesis.openapi.from_url(f"{url}/v1/openapi.json")
        yield loaded


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def test_no_operation_fails_or_breaks_its_schema(api_schema: schemathesis.BaseSchema) -> None:
    failures: list[str] = []
    operations = 0
    for found in api_schema.get_all_operations():
        operation = found.ok()
        operations += 1
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @settings(
                max_examples=EXAMPLES_PER_OPERATION,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                derandomize=True,
                database=None,
            )
            @given(case=operation.as_strategy(generation_mode=mode))
            def call(case: schemathesis.Case) -> None:
                case.call_and_validate(checks=CHECKS, timeout=30)

            try:
                call()
            except Unsatisfiable:  # nothing to break: the operation takes no input
                assert mode is GenerationMode.NEGATIVE and not operation.query, operation.label
            except (Exception, BaseExceptionGroup) as exc:  # one operation's; the rest still run
                failures.append(f"{operation.label} ({mode.value}): {str(exc)[:1500]}")
    assert operations >= 35
    assert not failures, "\n\n".join(failures)
