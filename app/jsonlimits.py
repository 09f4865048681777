"""JSON (and TOML) parsing with a nesting limit, for every input lathe reads.

Python's parsers recurse: a 5,000-deep document raises RecursionError in `json.loads` or
`tomllib.loads`, and one a little shallower parses but then crashes whatever walks it next (the
SDK's serializer, pydantic, a settings merge). No real transcript line, settings file, tool input,
scenario, hook output or MCP config comes near MAX_DEPTH, so deeper input is refused with a
message naming where it came from, before anything recursive sees it.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

MAX_DEPTH = 100

# Strings are skipped whole (a bracket inside one does not nest), in C, by the regex engine.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_TOKENS_B = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class JsonLimitError(ValueError):
    """Input nested deeper than the limit; the message names the input."""


def _too_deep(where: str, limit: int) -> JsonLimitError:
    return JsonLimitError(f"{where}: nested deeper than {limit} levels; refused")


def json_depth_exceeds(text: str | bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON text nests deeper than `limit`, without parsing it (and without recursion)."""
    if isinstance(text, bytes):
        if text.count(b"[") + text.count(b"{") <= limit:
            return False  # the common case costs two C-speed counts
        tokens = _TOKENS_B.finditer(text)
        opening: tuple[int, int] = (ord("["), ord("{"))
        closing: tuple[int, int] = (ord("]"), ord("}"))
    else:
        if text.count("[") + text.count("{") <= limit:
            return False
        tokens = _TOKENS.finditer(text)  # type: ignore[assignment]
        opening = ("[", "{")  # type: ignore[assignment]
        closing = ("]", "}")  # type: ignore[assignment]
    depth = 0
    for match in tokens:
        first = match.group()[0]
        if first in opening:
            depth += 1
            if depth > limit:
                return True
        elif first in closing:
            depth -= 1
    return False


def value_depth_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether a parsed value (dicts and lists) nests deeper than `limit`; iterative."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def loads(text: str | bytes, where: str, limit: int = MAX_DEPTH) -> Any:
    """`json.loads` that refuses input nested deeper than `limit` (JsonLimitError, a ValueError).

    Other malformed JSON raises json.JSONDecodeError as usual (also a ValueError)."""
    if json_depth_exceeds(text, limit):
        raise _too_deep(where, limit)
    try:
        return json.loads(text)
    except RecursionError:
        raise _too_deep(where, limit) from None


def toml_loads(text: str, where: str, limit: int = MAX_DEPTH) -> dict[str, Any]:
    """`tomllib.loads` with the same limit: nested arrays and inline tables recurse in tomllib,
    and dotted keys (`a.b.c...`) build deep tables without it, so the result is checked too."""
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise _too_deep(where, limit) from None
    if value_depth_exceeds(value, limit):
        raise _too_deep(where, limit)
    return value


def check_value(value: Any, where: str, limit: int = MAX_DEPTH) -> Any:
    """Refuse an already parsed value (from a library that parsed it) that nests too deep."""
    if value_depth_exceeds(value, limit):
        raise _too_deep(where, limit)
    return value
