"""ripgrep's glob semantics in Python, for the fallback: `-g` overrides and `-t` file types.

An override glob without a slash matches a name at any depth; with one it is anchored at the
search root; it matches the path itself only (a whitelisted folder does not whitelist its files).
The last glob that matches decides, as in ripgrep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tools.base import ToolError

_TYPES_FILE = Path(__file__).with_name("rg_types.txt")


def glob_to_regex(glob: str) -> str:
    """A regex source matching what `glob` matches in a `/`-separated relative path."""
    out: list[str] = []
    i, n = 0, len(glob)
    depth = 0
    while i < n:
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                at_start = i == 0 or glob[i - 1] == "/"
                after = i + 2
                if at_start and after < n and glob[after] == "/":
                    out.append("(?:.*/)?")
                    i = after + 1
                    continue
                if at_start and after == n:
                    out.append(".*")
                    i = after
                    continue
                out.append("[^/]*")
                i = after
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = glob.find(
                "]", i + 2 if glob.startswith("[!", i) or glob.startswith("[^", i) else i + 1
            )
            if end < 0:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif c == "{":
            depth += 1
            out.append("(?:")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Override:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def compile_override(glob: str) -> Override:
    negated = glob.startswith("!")
    body = glob[1:] if negated else glob
    dir_only = body.endswith("/")
    body = body.rstrip("/")
    if body.startswith("/"):
        body = body.lstrip("/")
    elif "/" not in body:
        body = "**/" + body
    try:
        regex = re.compile(glob_to_regex(body) + r"\Z", re.DOTALL)
    except re.error as exc:
        raise ToolError(f"Invalid glob {glob!r}: {exc}") from None
    return Override(regex, negated, dir_only)


class Overrides:
    """The `-g` globs of one search. `matched` is True (whitelisted), False (excluded) or None."""

    def __init__(self, globs: list[str]) -> None:
        self.items = [compile_override(g) for g in globs]
        self.has_whitelist = any(not o.negated for o in self.items)

    def __bool__(self) -> bool:
        return bool(self.items)

    def matched(self, rel: str, is_dir: bool) -> bool | None:
        for item in reversed(self.items):
            if item.dir_only and not is_dir:
                continue
            if item.regex.match(rel):
                return not item.negated
        if self.has_whitelist and not is_dir:
            return False
        return None


@cache
def type_table() -> dict[str, tuple[str, ...]]:
    """ripgrep's own type list (`rg --type-list`, stored beside this module)."""
    table: dict[str, tuple[str, ...]] = {}
    for line in _TYPES_FILE.read_text(encoding="utf-8").splitlines():
        name, _, globs = line.partition(":")
        if name and globs:
            table[name.strip()] = tuple(g.strip() for g in globs.split(",") if g.strip())
    return table


@cache
def type_matcher(name: str) -> re.Pattern[str]:
    """A regex matching the file names of type `name`; ToolError names the known types if unknown."""
    globs = type_table().get(name)
    if globs is None:
        raise ToolError(
            f"Unknown file type {name!r} for the `type` parameter. Common types: py, js, ts, "
            "rust, go, java, c, cpp, md, json, yaml, toml, html, css, sh. Or use `glob` instead."
        )
    alternatives = "|".join(f"(?:{glob_to_regex(g)})" for g in globs)
    return re.compile(f"(?:{alternatives})\\Z", re.DOTALL)


def split_glob_param(value: str) -> list[str]:
    """`"*.ts, *.tsx"` or `"*.{ts,tsx} !*.d.ts"`: split on spaces and commas outside braces."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for c in value:
        if c == "{":
            depth += 1
        elif c == "}" and depth:
            depth -= 1
        if depth == 0 and (c.isspace() or c == ","):
            if current:
                parts.append("".join(current))
                current = []
            continue
        current.append(c)
    if current:
        parts.append("".join(current))
    return parts
