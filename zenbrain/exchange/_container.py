"""Where an archive's files live: a folder (``PATH/manifest.json``, ``PATH/memories.jsonl``,
...) or one zip file holding the same names (a path ending in ``.zip``, or a file-like
object: what ``GET /v1/export?format=archive`` sends)."""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, BinaryIO

from zenbrain.errors import InvalidInputError

__all__ = [
    "UPLOAD_EXPANDED_LIMIT",
    "ArchiveFiles",
    "ArchiveWriter",
    "archive_target",
    "check_expanded",
]

#: The most an uploaded zip or tarball may hold unpacked (its members' declared sizes, which
#: bound what is read): a small upload cannot unpack into gigabytes of rows held in memory.
UPLOAD_EXPANDED_LIMIT = 1 << 30


def archive_target(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.expanduser(os.fspath(path)))


def check_expanded(total: int) -> None:
    """Refuse an upload that would unpack to more than :data:`UPLOAD_EXPANDED_LIMIT`."""
    if total > UPLOAD_EXPANDED_LIMIT:
        raise InvalidInputError(
            f"the upload unpacks to {total:,} bytes, more than the {UPLOAD_EXPANDED_LIMIT:,} "
            "an upload may: import it from a file with `zenbrain import` instead"
        )


class ArchiveWriter:
    """Writes an archive's files one after another, to a folder or a zip file."""

    def __init__(self, target: str | os.PathLike[str] | BinaryIO) -> None:
        self._zip: zipfile.ZipFile | None = None
        self._folder: Path | None = None
        if isinstance(target, str | os.PathLike):
            path = archive_target(target)
            if not path.parent.is_dir():
                raise InvalidInputError(f"the folder {path.parent} does not exist")
            if path.suffix.lower() == ".zip":
                self._zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
            else:
                if path.exists() and (not path.is_dir() or any(path.iterdir())):
                    raise InvalidInputError(
                        f"{path} exists and is not an empty folder: an archive is written "
                        "to a new or empty folder (or to a path ending in .zip)"
                    )
                path.mkdir(exist_ok=True)
                self._folder = path
        else:
            self._zip = zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED)

    @contextmanager
    def member(self, name: str) -> Iterator[IO[str]]:
        if self._zip is not None:
            raw = self._zip.open(name, "w")
            with io.TextIOWrapper(raw, "utf-8", newline="") as out:
                yield out
            return
        assert self._folder is not None
        with open(self._folder / name, "w", encoding="utf-8", newline="") as out:
            yield out

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()


class ArchiveFiles:
    """Reads an archive's files from a folder or a zip file (a path or bytes)."""

    def __init__(self, source: str | os.PathLike[str] | bytes) -> None:
        self._zip: zipfile.ZipFile | None = None
        self._folder: Path | None = None
        self.where = "the uploaded archive"
        try:
            if isinstance(source, bytes):
                self._zip = zipfile.ZipFile(io.BytesIO(source))
                check_expanded(sum(info.file_size for info in self._zip.infolist()))
            else:
                path = archive_target(source)
                self.where = str(path)
                if path.is_dir():
                    self._folder = path
                elif path.is_file():
                    self._zip = zipfile.ZipFile(path)
                else:
                    raise InvalidInputError(f"no archive at {path}: expected a folder or a .zip")
        except (zipfile.BadZipFile, OSError) as exc:
            raise InvalidInputError(
                f"{self.where} is neither an archive folder nor a zip file ({exc})"
            ) from exc

    def has(self, name: str) -> bool:
        if self._zip is not None:
            return name in self._zip.namelist()
        assert self._folder is not None
        return (self._folder / name).is_file()

    @contextmanager
    def open(self, name: str) -> Iterator[IO[str]]:
        try:
            if self._zip is not None:
                with self._zip.open(name) as raw, io.TextIOWrapper(raw, "utf-8") as stream:
                    yield stream
                return
            assert self._folder is not None
            with open(self._folder / name, encoding="utf-8") as stream:
                yield stream
        except UnicodeDecodeError as exc:
            raise InvalidInputError(f"{name} in {self.where} is not UTF-8 text ({exc})") from exc
        except (OSError, zipfile.BadZipFile) as exc:
            raise InvalidInputError(f"cannot read {name} in {self.where}: {exc}") from exc

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
