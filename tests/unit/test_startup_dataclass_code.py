"""app/dataclass_code.py: dataclasses built from stored compiled code are the dataclasses Python
would build; the store is written, read back in a new process, and a damaged one is ignored."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import dataclass_code

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not hasattr(dataclasses, "_create_fn"), reason="this Python compiles dataclasses per class"
)

CLASSES = """
from __future__ import annotations
from dataclasses import dataclass, field, KW_ONLY
from typing import ClassVar

@dataclass(frozen=True)
class Frozen:
    a: int
    b: str = "x"
    c: tuple[int, ...] = ()
    k: ClassVar[int] = 3

@dataclass(order=True, slots=True)
class Ordered:
    x: float
    y: list[int] = field(default_factory=list)

@dataclass(kw_only=True, eq=False)
class Keywords:
    name: str
    size: int = 0
"""


def _describe(ns: dict[str, object]) -> list[object]:
    """What a class's generated methods do, as data."""
    frozen, ordered, keywords = ns["Frozen"], ns["Ordered"], ns["Keywords"]
    f = frozen(1)  # type: ignore[operator]
    try:
        f.a = 2
        refused = False
    except dataclasses.FrozenInstanceError:
        refused = True
    o1, o2 = ordered(1.0), ordered(2.0, [3])  # type: ignore[operator]
    k = keywords(name="n")  # type: ignore[operator]
    return [
        repr(f),
        f == frozen(1, "x", ()),  # type: ignore[operator]
        hash(f) == hash(frozen(1)),  # type: ignore[operator]
        refused,
        frozen.__init__.__annotations__,  # type: ignore[misc]
        frozen.__init__.__defaults__,  # type: ignore[misc]
        repr(o2),
        o1 < o2,
        ordered.__slots__,  # type: ignore[attr-defined]
        repr(k),
        k == keywords(name="n"),  # type: ignore[operator]
        keywords.__init__.__kwdefaults__,  # type: ignore[misc]
        [fl.name for fl in dataclasses.fields(frozen)],  # type: ignore[arg-type]
    ]


def _define() -> dict[str, object]:
    ns: dict[str, object] = {"__name__": "probe"}
    sys.modules.setdefault("probe", type(sys)("probe"))
    exec(compile(CLASSES, "probe.py", "exec", dont_inherit=True), ns)
    return ns


@pytest.fixture
def clean() -> Iterator[None]:
    dataclass_code.uninstall()
    yield
    dataclass_code.uninstall()


def test_the_stored_code_builds_the_same_classes(tmp_path: Path, clean: None) -> None:
    plain = _describe(_define())
    store = tmp_path / "code.bin"
    dataclass_code.install(str(store))
    compiled = _describe(_define())  # compiled now, and kept
    dataclass_code.save()
    dataclass_code.uninstall()
    dataclass_code.install(str(store))
    assert dataclass_code._code  # read back
    stored = _describe(_define())  # from the stored code
    assert plain == compiled == stored


_COUNT_COMPILES = r"""
import builtins, sys
from app import dataclass_code
dataclass_code.install(sys.argv[1])
calls = []
real = builtins.compile
def counting(*a, **k):
    calls.append(1)
    return real(*a, **k)
builtins.compile = counting
from dataclasses import dataclass
@dataclass(frozen=True)
class P:
    a: int
    b: str = ""
assert P(1) == P(1, "") and repr(P(2)) == "P(a=2, b='')"
print(len(calls))
"""


def _run(store: Path) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.run(
        [sys.executable, "-c", _COUNT_COMPILES, str(store)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout)


def test_a_second_process_compiles_nothing_and_a_damaged_store_is_rebuilt(tmp_path: Path) -> None:
    store = tmp_path / "code.bin"
    assert _run(store) > 0  # first start: compiled, then saved at exit
    assert store.is_file()
    assert _run(store) == 0  # every method from the store
    store.write_bytes(store.read_bytes()[:100])  # damaged
    assert _run(store) > 0  # ignored, compiled again
    assert _run(store) == 0  # and rewritten whole


def test_no_store_is_written_where_python_writes_no_bytecode(tmp_path: Path, clean: None) -> None:
    store = tmp_path / "code.bin"
    dataclass_code.install(str(store))
    _define()
    old = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        dataclass_code.save()
    finally:
        sys.dont_write_bytecode = old
    assert not store.exists()
