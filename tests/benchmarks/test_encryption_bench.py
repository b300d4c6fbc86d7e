"""benchmarks.speed.encryption runs end to end on a small corpus and reports every variant."""

from __future__ import annotations

import pytest

from benchmarks.common.paths import default_locomo_path
from benchmarks.speed import encryption

pytest.importorskip("sqlcipher3")
LOCOMO = default_locomo_path()


@pytest.mark.skipif(not LOCOMO.is_file(), reason=f"no LoCoMo data at {LOCOMO}")
def test_the_table_has_every_variant_with_its_ratio_to_the_plain_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(encryption, "SINGLES", 5)
    monkeypatch.setattr(encryption, "FORGETS", 5)
    table = encryption.zenbrain_table(60, 1)
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert [row.split(" | ")[0] for row in rows[1:]] == [f"| {v}" for v in encryption.VARIANTS]
    assert rows[-1].count("×)") == len(encryption.COLUMNS)  # encrypted: a ratio per column


def test_the_driver_table_times_the_stdlib_and_sqlcipher() -> None:
    table = encryption.driver_table()
    assert "sqlite3 (SQLite" in table and "sqlcipher3 (SQLCipher 4" in table
