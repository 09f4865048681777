"""Compiled regular expressions, kept from one start to the next (issue 18).

`re.compile` parses a pattern and generates the regex engine's code in Python: about 0.12 ms a
pattern, and `lathe -p` compiles some 200 (lathe's, pydantic's, the SDK's, httpx's) before its
first request. What the parser and code generator produce depends only on the pattern, its flags
and the interpreter, so it is kept, keyed by (pattern, flags), in one file beside lathe's
bytecode (the interpreter's magic number and the regex engine's in the key); the engine's own
constructor, `_sre.compile`, then builds the Pattern from it exactly as `re` would. A pattern
that does not compile, or one compiled with re.DEBUG, goes the ordinary way every time.

`install()` is called by lathe's own entry point; `save()` runs at exit when new patterns were
seen. A cache file that cannot be read is ignored and rewritten, never trusted in part.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # the regex engine `re` itself builds on
import atexit
import importlib.util
import marshal
import os
import sys
from re import _compiler  # type: ignore[attr-defined]
from typing import Any

from app.marshal_store import dump_atomically

_FORMAT = 1
_MAX_ENTRIES = 4000

# (pattern, flags) -> (flags with the pattern's inline ones, code, groups - 1, groupindex,
# indexgroup): the arguments re._compiler.compile passes to _sre.compile.
_Parts = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
_parts: dict[tuple[str | bytes, int], _Parts] = {}
_state: dict[str, Any] = {"new": 0, "installed": False, "original": None}
_path: list[str] = []


def _compile(p: Any, flags: int = 0) -> Any:
    """re._compiler.compile with the parsed and generated code looked up first."""
    if not isinstance(p, str | bytes) or flags & _compiler.SRE_FLAG_DEBUG:
        return _state["original"](p, flags)
    key = (p, flags)
    parts = _parts.get(key)
    if parts is None:
        parsed = _compiler._parser.parse(p, flags)
        code = _compiler._code(parsed, flags)
        groupindex = {str(name): int(index) for name, index in parsed.state.groupdict.items()}
        names: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            names[index] = name
        # Plain ints: the opcodes are an int subclass, which marshal does not store.
        parts = (
            int(flags | parsed.state.flags),
            [int(op) for op in code],
            int(parsed.state.groups - 1),
            groupindex,
            tuple(names),
        )
        if len(_parts) < _MAX_ENTRIES:
            _parts[key] = parts
            _state["new"] += 1
    final_flags, code, groups, groupindex, indexgroup = parts
    return _sre.compile(p, final_flags, code, groups, groupindex, indexgroup)


def cache_file() -> str | None:
    """Beside this package's bytecode (PYTHONPYCACHEPREFIX honoured), or None."""
    try:
        pyc = importlib.util.cache_from_source(__file__)
    except (NotImplementedError, ValueError):
        return None
    return os.path.join(os.path.dirname(pyc), f"regex-code.{sys.implementation.cache_tag}.bin")


def _key() -> tuple[int, bytes, int]:
    return (_FORMAT, importlib.util.MAGIC_NUMBER, int(_sre.MAGIC))


def install(path: str | None = None) -> None:
    """From now on, a pattern compiled before is built from its stored code. Only where `re`
    is the one this module was written against (its compile step and `_sre.compile`)."""
    if _state["installed"] or not _supported():
        return
    target = path or cache_file()
    if target is not None:
        _path.append(target)
        _parts.update(_read(target))
    _state["original"] = _compiler.compile
    _compiler.compile = _compile
    _state["installed"] = True
    atexit.register(save)


def _supported() -> bool:
    return all(hasattr(_compiler, n) for n in ("compile", "_code", "_parser", "SRE_FLAG_DEBUG"))


def uninstall() -> None:
    """Back to `re`'s own compile step (tests)."""
    if _state["installed"]:
        _compiler.compile = _state["original"]
        atexit.unregister(save)
        _state["installed"] = False
    _parts.clear()
    _path.clear()
    _state["new"] = 0


def _read(path: str) -> dict[tuple[str | bytes, int], _Parts]:
    try:
        with open(path, "rb") as f:
            key, keys, values = marshal.loads(f.read())
        stored = dict(zip(keys, values, strict=True))
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if tuple(key) != _key():
        return {}
    for k, v in stored.items():
        if not (
            type(k) is tuple
            and len(k) == 2
            and type(k[0]) in (str, bytes)
            and type(k[1]) is int
            and type(v) is tuple
            and len(v) == 5
            and type(v[1]) is list
        ):
            return {}
    return stored


def save() -> None:
    """Write the patterns seen, when there are new ones and bytecode may be written."""
    if not _state["new"] or not _path or sys.dont_write_bytecode:
        return
    if dump_atomically(_path[0], (_key(), list(_parts), list(_parts.values()))):
        _state["new"] = 0
