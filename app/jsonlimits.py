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


class JsonLimitError(json.JSONDecodeError):
    """Input nested deeper than the limit. A JSONDecodeError (so every handler of malformed JSON
    handles it, with `msg`, `lineno` and `colno`) whose str() names the input."""

    def __init__(self, where: str, limit: int, doc: str = "", pos: int = 0) -> None:
        super().__init__(f"nested deeper than {limit} levels", doc, pos)
        self.where = where
        self.limit = limit

    def __str__(self) -> str:
        at = f" (line {self.lineno})" if self.doc else ""
        return f"{self.where}: nested deeper than {self.limit} levels{at}; refused"

    def __reduce__(self) -> tuple[type, tuple[str, int, str, int]]:
        return (type(self), (self.where, self.limit, self.doc, self.pos))


def _too_deep(where: str, limit: int, text: str | bytes = "", pos: int = -1) -> JsonLimitError:
    if pos < 0:
        return JsonLimitError(where, limit)
    head = text[: pos + 1]
    doc = head.decode("utf-8", "replace") if isinstance(head, bytes) else head
    return JsonLimitError(where, limit, doc, len(doc) - 1)


def _deep_position(text: str | bytes, limit: int) -> int:
    """Where JSON text first nests deeper than `limit`, or -1."""
    if isinstance(text, bytes):
        if text.count(b"[") + text.count(b"{") <= limit:
            return -1  # the common case costs two C-speed counts
        tokens = _TOKENS_B.finditer(text)
        opening: tuple[int, int] = (ord("["), ord("{"))
        closing: tuple[int, int] = (ord("]"), ord("}"))
    else:
        if text.count("[") + text.count("{") <= limit:
            return -1
        tokens = _TOKENS.finditer(text)  # type: ignore[assignment]
        opening = ("[", "{")  # type: ignore[assignment]
        closing = ("]", "}")  # type: ignore[assignment]
    depth = 0
    for match in tokens:
        first = match.group()[0]
        if first in opening:
            depth += 1
            if depth > limit:
                return match.start()
        elif first in closing:
            depth -= 1
    return -1


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
    """`json.loads` that refuses input nested deeper than `limit` (JsonLimitError).

    Other malformed JSON raises json.JSONDecodeError as usual (also a ValueError)."""
    pos = _deep_position(text, limit)
    if pos >= 0:
        raise _too_deep(where, limit, text, pos)
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
