"""The methods `@dataclass` writes, compiled once and kept from one start to the next (issue 18).

On Python 3.11 and 3.12 `dataclasses` writes each generated method (`__init__`, `__repr__`,
`__eq__`, a frozen class's `__setattr__`, ...) as source text and `exec`s it: about 0.7 ms a class,
70% of it compiling, and `lathe -p` defines some 270 dataclasses before its first request. The
text depends only on the class's fields and options, so its compiled code is kept, keyed by the
exact text, in one file beside lathe's bytecode (where and when Python writes bytecode, with the
interpreter's magic number in the key); `exec` then runs the stored code object, which is what it
would have compiled. Nothing else changes: the same globals, locals and names, compiled with the
flags `exec` would use (none: `dataclasses` has no `__future__` imports).

`install()` is called by lathe's own entry point; `save()` runs at exit when new texts were seen.
A cache file that cannot be read is ignored and rewritten, never trusted in part.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import importlib.util
import marshal
import os
import sys
from types import CodeType
from typing import Any

from app.marshal_store import dump_atomically

# Bump when the file's layout changes; the magic number covers the code objects' format.
_FORMAT = 1
# A bound on the file: a program defining classes without end must not grow it without end.
_MAX_ENTRIES = 8000

_code: dict[str, CodeType] = {}
_state = {"new": 0, "installed": False}
_path: list[str] = []  # the cache file, once install() found one


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """`exec` as `dataclasses` calls it, with the compiled text looked up first."""
    if type(source) is str:
        code = _code.get(source)
        if code is None:
            # dont_inherit: compiled with no __future__ flags, as exec() in dataclasses would.
            code = compile(source, "<string>", "exec", dont_inherit=True)
            if len(_code) < _MAX_ENTRIES:
                _code[source] = code
                _state["new"] += 1
        source = code
    builtins.exec(source, globals, locals)


def cache_file() -> str | None:
    """Where the compiled texts live: beside this package's bytecode (PYTHONPYCACHEPREFIX
    honoured), or None when Python keeps no bytecode for it."""
    try:
        pyc = importlib.util.cache_from_source(__file__)
    except (NotImplementedError, ValueError):
        return None
    return os.path.join(os.path.dirname(pyc), f"dataclass-code.{sys.implementation.cache_tag}.bin")


def _key() -> tuple[int, bytes]:
    return (_FORMAT, importlib.util.MAGIC_NUMBER)


def install(path: str | None = None) -> None:
    """From now on, `@dataclass` runs stored code for texts seen before. Only where
    `dataclasses` still compiles methods one `exec` at a time (3.11, 3.12)."""
    if _state["installed"] or not hasattr(dataclasses, "_create_fn"):
        return
    target = path or cache_file()
    if target is not None:
        _path.append(target)
        _code.update(_read(target))
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # the module's global shadows builtins
    _state["installed"] = True
    atexit.register(save)


def uninstall() -> None:
    """Back to the interpreter's own `exec` (tests)."""
    if _state["installed"]:
        del dataclasses.exec  # type: ignore[attr-defined]
        atexit.unregister(save)
        _state["installed"] = False
    _code.clear()
    _path.clear()
    _state["new"] = 0


def _read(path: str) -> dict[str, CodeType]:
    # One read, then loads: marshal.load(file) reads item by item through the file object,
    # which costs several times the decoding. Texts and code are two lists: decoding a dict of
    # them costs about twice as much.
    try:
        with open(path, "rb") as f:
            key, texts, codes = marshal.loads(f.read())
        stored = dict(zip(texts, codes, strict=True))
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if tuple(key) != _key():
        return {}
    if not all(type(k) is str and type(v) is CodeType for k, v in stored.items()):
        return {}
    return stored


def save() -> None:
    """Write the texts seen, when there are new ones and bytecode may be written."""
    if not _state["new"] or not _path or sys.dont_write_bytecode:
        return
    if dump_atomically(_path[0], (_key(), list(_code), list(_code.values()))):
        _state["new"] = 0
