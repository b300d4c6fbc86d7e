"""``zenbrain._algorithms.__all__`` lists exactly what the package re-exports."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import zenbrain._algorithms as algorithms


def test_all_names_are_importable_and_unique() -> None:
    assert len(algorithms.__all__) == len(set(algorithms.__all__))
    for name in algorithms.__all__:
        assert hasattr(algorithms, name), name


def test_every_public_function_and_class_of_every_module_is_reexported() -> None:
    modules = [m.name for m in pkgutil.iter_modules(algorithms.__path__) if m.name[0] != "_"]
    # The modules a layer or stage uses; the others live in the repository's research/.
    assert set(modules) == {
        "bayesian", "emotional", "hebbian", "pagerank", "similarity",
        "sleep_consolidation", "temporal_routing",
    }  # fmt: skip
    expected: set[str] = set()
    for module_name in modules:
        module = importlib.import_module(f"zenbrain._algorithms.{module_name}")
        assert module.__doc__ and "Source" in module.__doc__
        for name in module.__all__:
            assert hasattr(module, name), f"{module_name}.{name}"
            if not name.isupper():
                expected.add(name)
                assert getattr(algorithms, name) is getattr(module, name)
    assert set(algorithms.__all__) == expected


def test_the_package_imports_its_modules_lazily() -> None:
    # A fresh interpreter: which algorithm modules do `import zenbrain` and one name load?
    script = (
        "import sys\n"
        "def loaded():\n"
        "    return {m for m in sys.modules if m.startswith('zenbrain._algorithms.')}\n"
        "import zenbrain._algorithms\n"
        "before = loaded()\n"
        "from zenbrain._algorithms import top_k_by_pagerank\n"
        "print(' '.join(sorted(before)))\n"
        "print(' '.join(sorted(loaded() - before)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    before, added = (set(line.split()) for line in done.stdout.splitlines())
    assert "zenbrain._algorithms.pagerank" not in before
    assert len(before) < len(list(pkgutil.iter_modules(algorithms.__path__))) // 2
    assert added == {"zenbrain._algorithms.pagerank"}


def test_unknown_names_raise_attribute_error() -> None:
    assert "top_k_by_pagerank" in dir(algorithms)
    try:
        algorithms.no_such_algorithm  # noqa: B018
    except AttributeError as exc:
        assert "no_such_algorithm" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
