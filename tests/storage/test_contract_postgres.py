"""The storage contract (zenbrain.testing.contract) on PostgreSQL with pgvector: a new
database per test on the suite's server (or on $ZENBRAIN_TEST_POSTGRES_URL)."""

from __future__ import annotations

import pytest

from zenbrain.testing.contract import StorageContract
from zenbrain.testing.pytest_postgres import postgres_database_url  # noqa: F401  (a fixture)

pytestmark = pytest.mark.postgres


class TestPostgresContract(StorageContract):
    @pytest.fixture
    def location(self, postgres_database_url: str) -> str:  # noqa: F811
        return postgres_database_url
