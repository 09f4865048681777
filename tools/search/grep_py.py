"""Grep without ripgrep: the same files (walk.py), Python's `re` for the matching.

Regex dialects differ at the edges (Python has no `\\p{...}`); everything the model usually
writes (classes, groups, anchors, `\\b`, `\\s`, `\\d`, lazy quantifiers) means the same in both.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from tools.base import ToolError
from tools.search.globs import Overrides, type_matcher
from tools.search.grep_model import Entry, FileHits, GrepQuery, clip
from tools.search.walk import walk_files

MAX_FILE_BYTES = 64 * 1024 * 1024


def compile_pattern(query: GrepQuery) -> re.Pattern[str]:
    if not query.multiline and (
        "\n" in query.pattern or "\\n" in query.pattern.replace("\\\\", "")
    ):
        raise ToolError(
            'Invalid regex pattern: the literal "\\n" is not allowed in a regex unless '
            "multiline is true."
        )
    flags = re.MULTILINE
    if query.ignore_case:
        flags |= re.IGNORECASE
    if query.multiline:
        flags |= re.DOTALL
    try:
        return re.compile(query.pattern, flags)
    except re.error as exc:
        raise ToolError(f"Invalid regex pattern: {exc}") from None


def _decode(data: bytes) -> str | None:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    if b"\0" in data:
        return None  # binary: ripgrep skips it in a folder search
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", "replace")


def _search_file(path: str, regex: re.Pattern[str], query: GrepQuery) -> FileHits | None:
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            return None
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    text = _decode(data)
    if text is None or regex.search(text) is None:
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    matched = _matched_lines(text, lines, regex, query.multiline)
    if not matched:
        return None
    hit = FileHits(path, len(matched))
    if query.mode != "content":
        return hit
    shown: set[int] = set()
    for index in matched:
        shown.update(range(max(0, index - query.before), min(len(lines), index + query.after + 1)))
    for index in sorted(shown):
        is_match = index in matched
        body = lines[index]
        if body.endswith("\r"):
            body = body[:-1]
        hit.entries.append(Entry(index + 1, is_match, clip(body, is_match)))
    return hit


def _matched_lines(
    text: str, lines: list[str], regex: re.Pattern[str], multiline: bool
) -> set[int]:
    if not multiline:
        return {i for i, line in enumerate(lines) if regex.search(line)}
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    import bisect

    matched: set[int] = set()
    for m in regex.finditer(text):
        first = bisect.bisect_right(starts, m.start()) - 1
        last = bisect.bisect_right(starts, max(m.end() - 1, m.start())) - 1
        matched.update(range(first, min(last, len(lines) - 1) + 1))
    return matched


def search(query: GrepQuery, cancelled: Callable[[], bool]) -> list[FileHits]:
    regex = compile_pattern(query)
    if os.path.isfile(query.root):
        # An explicit file is searched whatever the globs and type say, as in ripgrep.
        hit = _search_file(query.root, regex, query)
        return [hit] if hit else []
    file_type = type_matcher(query.file_type) if query.file_type else None
    overrides = Overrides(list(query.globs))
    hits: list[FileHits] = []
    for path in walk_files(query.root, overrides, file_type, cancelled):
        hit = _search_file(path, regex, query)
        if hit is not None:
            hits.append(hit)
    if cancelled():
        raise ToolError("Search cancelled.")
    return hits
