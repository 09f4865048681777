"""The nested YAML of one frontmatter key (a skill's `hooks:`), read without PyYAML.

Frontmatter is otherwise flat (app/memory/frontmatter.py), but Claude Code's skills may carry
their hooks in the settings files' shape:

    hooks:
      PreToolUse:
        - matcher: "Bash"
          hooks:
            - type: command
              command: "./check.sh"

Supported: block mappings (`key: value`, `key:` then a deeper block), block lists (`- item`,
`- key: value` starting a mapping), flow lists of scalars (`[a, b]`), plain, single- and
double-quoted scalars, `true`/`false`/`null`, integers, `#` comments. Anything else (block
scalars `|`, anchors, flow mappings, a tab, a bad indent) raises YamlBlockError: a hook that
cannot be read must never be dropped silently, so the caller refuses the file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*))?$")


class YamlBlockError(ValueError):
    pass


@dataclass
class _Line:
    number: int
    indent: int
    text: str


def nested_block(text: str, key: str) -> list[tuple[int, str]] | None:
    """The lines (numbered from 1) under a top-level frontmatter `key:`, or None without one."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return None
    for i in range(1, end):
        match = _KEY.match(lines[i])
        if match and match.group(1) == key and not lines[i][0].isspace():
            if (match.group(2) or "").strip() not in ("", "{}", "[]"):
                raise YamlBlockError(f"line {i + 1}: `{key}:` must be followed by a block")
            block: list[tuple[int, str]] = []
            for j in range(i + 1, end):
                raw = lines[j]
                if raw.strip() and not raw[0].isspace():
                    break  # the next top-level key
                block.append((j + 1, raw))
            return block
    return None


def parse_block(lines: list[tuple[int, str]]) -> Any:
    """The value of a block (None when it is empty)."""
    items: list[_Line] = []
    for number, raw in lines:
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YamlBlockError(f"line {number}: a tab in the indentation")
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        items.append(_Line(number, len(raw) - len(raw.lstrip(" ")), stripped))
    if not items:
        return None
    value, end = _block(items, 0, items[0].indent)
    if end != len(items):
        raise YamlBlockError(f"line {items[end].number}: unexpected indentation")
    return value


def _is_item(text: str) -> bool:
    return text == "-" or text.startswith("- ")


def _block(items: list[_Line], i: int, indent: int) -> tuple[Any, int]:
    if _is_item(items[i].text):
        return _list(items, i, indent)
    return _map(items, i, indent)


def _map(items: list[_Line], i: int, indent: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    while i < len(items) and items[i].indent == indent and not _is_item(items[i].text):
        line = items[i]
        match = _KEY.match(line.text)
        if match is None:
            raise YamlBlockError(f"line {line.number}: expected `key: value`, got {line.text!r}")
        key, rest = match.group(1), (match.group(2) or "").strip()
        if key in out:
            raise YamlBlockError(f"line {line.number}: `{key}` is given twice")
        i += 1
        if rest and not rest.startswith("#"):
            out[key] = _scalar(rest, line.number)
        elif i < len(items) and items[i].indent > indent:
            out[key], i = _block(items, i, items[i].indent)
        elif i < len(items) and items[i].indent == indent and _is_item(items[i].text):
            out[key], i = _list(items, i, indent)  # a list level with its key, as YAML allows
        else:
            out[key] = None
    if i < len(items) and items[i].indent > indent:
        raise YamlBlockError(f"line {items[i].number}: unexpected indentation")
    return out, i


def _list(items: list[_Line], i: int, indent: int) -> tuple[list[Any], int]:
    out: list[Any] = []
    while i < len(items) and items[i].indent == indent and _is_item(items[i].text):
        line = items[i]
        rest = line.text[1:].lstrip()
        if not rest or rest.startswith("#"):
            i += 1
            if i < len(items) and items[i].indent > indent:
                value, i = _block(items, i, items[i].indent)
            else:
                value = None
        elif _KEY.match(rest) or _is_item(rest):
            # `- key: value`: a mapping whose keys line up with `key`.
            column = indent + (len(line.text) - len(rest))
            items[i] = _Line(line.number, column, rest)
            value, i = _block(items, i, column)
        else:
            value = _scalar(rest, line.number)
            i += 1
        out.append(value)
    return out, i


def _scalar(text: str, number: int) -> Any:
    if text[0] in "&*!|>{%@`":
        raise YamlBlockError(f"line {number}: {text[0]!r} values are not supported here")
    if text[0] == '"':
        end = _closing_double(text)
        tail = text[end + 1 :].strip() if end >= 0 else ""
        if end < 0 or (tail and not tail.startswith("#")):
            raise YamlBlockError(f"line {number}: a double-quoted value is not closed")
        try:
            return json.loads(text[: end + 1])
        except ValueError as exc:
            raise YamlBlockError(f"line {number}: {exc}") from None
    if text[0] == "'":
        end = _closing_single(text)
        tail = text[end + 1 :].strip() if end >= 0 else ""
        if end < 0 or (tail and not tail.startswith("#")):
            raise YamlBlockError(f"line {number}: a single-quoted value is not closed")
        return text[1:end].replace("''", "'")
    if text[0] == "[":
        if not text.endswith("]"):
            raise YamlBlockError(f"line {number}: a flow list is not closed")
        inner = text[1:-1].strip()
        return [_scalar(part.strip(), number) for part in inner.split(",")] if inner else []
    plain = re.split(r"\s#", text, maxsplit=1)[0].strip()
    if plain in ("true", "True"):
        return True
    if plain in ("false", "False"):
        return False
    if plain in ("null", "~"):
        return None
    if re.fullmatch(r"-?\d+", plain):
        return int(plain)
    return plain


def _closing_double(text: str) -> int:
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return -1


def _closing_single(text: str) -> int:
    i = 1
    while i < len(text):
        if text[i] == "'":
            if i + 1 < len(text) and text[i + 1] == "'":
                i += 2
                continue
            return i
        i += 1
    return -1
