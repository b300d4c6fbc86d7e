"""``zenbrain.algorithms.__all__`` lists exactly what the package re-exports."""

from __future__ import annotations

import importlib
import pkgutil

import zenbrain.algorithms as algorithms


def test_all_names_are_importable_and_unique() -> None:
    assert len(algorithms.__all__) == len(set(algorithms.__all__))
    for name in algorithms.__all__:
        assert hasattr(algorithms, name), name


def test_every_public_function_and_class_of_every_module_is_reexported() -> None:
    modules = [m.name for m in pkgutil.iter_modules(algorithms.__path__) if m.name[0] != "_"]
    assert len(modules) >= 20
    expected: set[str] = set()
    for module_name in modules:
        module = importlib.import_module(f"zenbrain.algorithms.{module_name}")
        assert (module.__doc__ and "Source" in module.__doc__) or module_name == "text_folding"
        for name in module.__all__:
            assert hasattr(module, name), f"{module_name}.{name}"
            if not name.isupper():
                expected.add(name)
                assert getattr(algorithms, name) is getattr(module, name)
    assert set(algorithms.__all__) == expected
