"""RemoteMemory has MemoryCoordinator's public methods, with the same parameters, and an
async twin for each one the coordinator has."""

from __future__ import annotations

import importlib
import inspect

import pytest

from zenbrain._coordinator import MemoryCoordinator
from zenbrain.remote import RemoteMemory

# Local-only: the database object, and the PostgreSQL bulk-load block (a no-op remotely).
LOCAL_ONLY = {"database", "abulk_load"}


def _public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def test_every_coordinator_method_is_there_with_its_parameters() -> None:
    missing = _public(MemoryCoordinator) - _public(RemoteMemory) - LOCAL_ONLY
    assert not missing, missing
    for name in _public(MemoryCoordinator) - LOCAL_ONLY:
        local = getattr(MemoryCoordinator, name)
        if not callable(local) or isinstance(local, property):
            continue
        remote = getattr(RemoteMemory, name)
        assert inspect.iscoroutinefunction(remote) == inspect.iscoroutinefunction(local), name
        local_params = set(inspect.signature(local).parameters) - {"self"}
        remote_params = inspect.signature(remote).parameters
        if any(p.kind is p.VAR_KEYWORD for p in remote_params.values()):
            continue  # store(**arguments): every keyword goes to the server as is
        assert local_params <= set(remote_params), (name, local_params - set(remote_params))


@pytest.mark.parametrize(
    "name",
    [
        "zenbrain.server",
        "zenbrain.server._app",
        "zenbrain.server._models",
        "zenbrain.server._access",
        "zenbrain.server._problems",
        "zenbrain.server._running",
        "zenbrain._remote_wire",
    ],
)
def test_server_modules_declare_all_and_every_name_exists(name: str) -> None:
    module = importlib.import_module(name)
    assert len(module.__all__) == len(set(module.__all__))
    for symbol in module.__all__:
        assert hasattr(module, symbol), f"{name}.__all__ names missing {symbol}"
