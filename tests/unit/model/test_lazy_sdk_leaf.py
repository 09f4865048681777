"""app/model/lazy_sdk_leaf.py: which imports of a leaf module are deferred, and that a module run
with them deferred behaves as written (a real package on disk, real imports)."""

from __future__ import annotations

import importlib
import sys
import textwrap
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from app.model import lazy_sdk_leaf

HEAVY = """
LOADED = True
def helper(x):
    return x + 1
class Model:
    def __init__(self, *args):
        self.args = args
Alias = int
"""


@pytest.fixture
def package(tmp_path: Path) -> Iterator[str]:
    """A package `leafpkgN` with a module `heavy` whose import is what a deferral must avoid."""
    name = f"leafpkg{len(list(tmp_path.parent.iterdir()))}_{tmp_path.name}"[:60].replace("-", "_")
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "heavy.py").write_text(HEAVY)
    (root / "other.py").write_text("from .heavy import helper\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]


def _load(package: str, source: str) -> tuple[ModuleType, set[str]]:
    """Run `source` as `package.leaf` through the plan; the names it deferred."""
    text = textwrap.dedent(source)
    fullname = f"{package}.leaf"
    made = lazy_sdk_leaf.plan(text.encode(), fullname, "<leaf>")
    module = ModuleType(fullname)
    module.__package__ = package
    sys.modules[fullname] = module
    if made is None:
        exec(compile(text, "<leaf>", "exec"), module.__dict__)
        return module, set()
    code, names = made
    lazy_sdk_leaf.install(module, names)
    exec(code, module.__dict__)
    return module, set(names)


def _heavy_loaded(package: str) -> bool:
    return f"{package}.heavy" in sys.modules


def test_a_name_only_functions_call_is_imported_at_its_first_call(package: str) -> None:
    module, deferred = _load(
        package,
        """
        from __future__ import annotations
        from .heavy import helper, Model

        def run(x: Model) -> int:
            return helper(x)
        """,
    )
    assert deferred == {"helper", "Model"}  # an annotation of a function is a string
    assert not _heavy_loaded(package)
    assert module.run(1) == 2
    assert _heavy_loaded(package)
    # Other modules read it as the import would have bound it.
    assert module.helper is importlib.import_module(f"{package}.heavy").helper


def test_a_name_the_module_body_reads_is_imported_as_written(package: str) -> None:
    _, deferred = _load(
        package,
        """
        from .heavy import helper, Model, Alias

        class Sub(Model):
            pass

        DEFAULT = helper(1)

        def f(x=Alias):
            return x
        """,
    )
    assert deferred == set()
    assert _heavy_loaded(package)


@pytest.mark.parametrize(
    "use",
    [
        "class C:\n    field: Model\n",  # pydantic and TypedDict evaluate class annotations
        "def f(x: Model) -> None:\n    return Model()\n",  # no `from __future__ import annotations`
        "def f():\n    return cast('Model', 1)\n",  # a forward reference in a string
        "def f():\n    Model = 1\n    return Model\n",  # bound again: a local
        "def f():\n    global Model\n    Model = 2\n",
        "def f():\n    return globals()['Model']\n",  # reads the namespace
        "def __getattr__(name):\n    return Model\n",  # the module's own __getattr__
        "@Model\ndef f():\n    return Model\n",  # a decorator runs with the def
        "def f(v):\n    match v:\n        case [*Model]:\n            return Model\n",  # a capture
    ],
)
def test_anything_that_may_read_the_name_early_keeps_the_import(package: str, use: str) -> None:
    _, deferred = _load(package, "from .heavy import Model\nfrom typing import cast\n" + use)
    assert "Model" not in deferred


def test_a_type_alias_of_deferred_names_is_evaluated_when_first_read(package: str) -> None:
    module, deferred = _load(
        package,
        """
        from __future__ import annotations
        from .heavy import Model, Alias

        __all__ = ["Both", "describe"]

        Both = Model | Alias

        def describe(value: object) -> bool:
            return isinstance(value, Both)
        """,
    )
    assert deferred == {"Model", "Alias", "Both"}
    assert not _heavy_loaded(package)
    heavy = importlib.import_module(f"{package}.heavy")
    assert module.describe(3) is True
    assert module.Both == heavy.Model | int


def test_an_alias_read_by_the_module_body_is_evaluated_as_written(package: str) -> None:
    _, deferred = _load(
        package,
        """
        from .heavy import Model
        Both = Model | int
        CHECK = Both
        def f():
            return Model
        """,
    )
    assert deferred == set()


def test_a_submodule_imported_by_name_resolves(package: str) -> None:
    module, deferred = _load(package, "from . import heavy\ndef f():\n    return heavy.LOADED\n")
    assert deferred == {"heavy"}
    assert module.f() is True


def test_tracebacks_keep_their_lines(package: str) -> None:
    module, _ = _load(
        package,
        "from .heavy import helper\n\n\ndef f():\n    return helper(None)\n",
    )
    with pytest.raises(TypeError) as info:
        module.f()
    frames = [f for f in traceback.extract_tb(info.value.__traceback__) if f.filename == "<leaf>"]
    assert [f.lineno for f in frames] == [5]
