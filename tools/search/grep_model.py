"""What a Grep search asks and finds, shared by both backends, and the one formatter of results.

Both backends fill the same `FileHits`; ordering, context separators and pagination happen here
only, which is what makes ripgrep and the fallback give the same text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Literal

OutputMode = Literal["content", "files_with_matches", "count"]
MAX_COLUMNS = 500
OMITTED_MATCH = "[Omitted long matching line]"
OMITTED_CONTEXT = "[Omitted long context line]"


@dataclass(frozen=True)
class GrepQuery:
    pattern: str
    root: str
    mode: OutputMode = "files_with_matches"
    globs: tuple[str, ...] = ()
    file_type: str | None = None
    ignore_case: bool = False
    line_numbers: bool = True
    before: int = 0
    after: int = 0
    multiline: bool = False

    @property
    def has_context(self) -> bool:
        return self.mode == "content" and (self.before > 0 or self.after > 0)


@dataclass(frozen=True)
class Entry:
    line: int
    is_match: bool
    text: str


@dataclass
class FileHits:
    path: str
    count: int = 0
    entries: list[Entry] = field(default_factory=list)


@dataclass(frozen=True)
class GrepResult:
    """The data of a Grep call. `items` is the page shown; `total` counts before paging."""

    mode: OutputMode
    items: tuple[str, ...]
    total: int
    offset: int
    num_files: int
    num_matches: int = 0
    partial: bool = False
    backend: str = "rg"

    def text(self) -> str:
        shown = len(self.items)
        more = self.offset + shown < self.total
        page = ""
        if self.offset or more:
            page = (
                f"[Showing {self.offset + 1}-{self.offset + shown} of {self.total}"
                + (f"; use offset={self.offset + shown} for more" if more else "")
                + "]"
            )
        notes = [page] if page else []
        if self.partial:
            notes.append("[The search produced too much output and was stopped; narrow it.]")
        tail = ("\n\n" + "\n".join(notes)) if notes else ""
        if self.mode == "files_with_matches":
            if not self.total:
                return "No files found"
            head = f"Found {self.total} file{'s' if self.total != 1 else ''}"
            return head + "\n" + "\n".join(self.items) + tail
        if self.mode == "count":
            if not self.total:
                return "No matches found"
            summary = (
                f"\n\nFound {self.num_matches} total occurrence"
                f"{'s' if self.num_matches != 1 else ''} across {self.num_files} file"
                f"{'s' if self.num_files != 1 else ''}."
            )
            return "\n".join(self.items) + summary + tail
        if not self.total:
            return "No matches found"
        return "\n".join(self.items) + tail


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def format_hits(
    query: GrepQuery,
    hits: list[FileHits],
    head_limit: int,
    offset: int,
    partial: bool,
    backend: str,
) -> GrepResult:
    hits = [h for h in hits if h.count > 0 or h.entries]
    if query.mode == "files_with_matches":
        # Newest first: the file just edited is the one most likely wanted.
        ordered = sorted(hits, key=lambda h: (-_mtime(h.path), h.path))
        lines = [h.path for h in ordered]
    elif query.mode == "count":
        ordered = sorted(hits, key=lambda h: h.path)
        lines = [f"{h.path}:{h.count}" for h in ordered]
    else:
        ordered = sorted(hits, key=lambda h: h.path)
        lines = _content_lines(query, ordered)
    page = lines[offset:] if head_limit == 0 else lines[offset : offset + head_limit]
    return GrepResult(
        query.mode,
        tuple(page),
        len(lines),
        offset,
        len(hits),
        sum(h.count for h in hits),
        partial,
        backend,
    )


def _content_lines(query: GrepQuery, hits: list[FileHits]) -> list[str]:
    lines: list[str] = []
    for hit in hits:
        previous: int | None = None
        for entry in sorted(hit.entries, key=lambda e: e.line):
            if query.has_context and lines and (previous is None or entry.line > previous + 1):
                lines.append("--")
            previous = entry.line
            sep = ":" if entry.is_match else "-"
            if query.line_numbers:
                lines.append(f"{hit.path}{sep}{entry.line}{sep}{entry.text}")
            else:
                lines.append(f"{hit.path}{sep}{entry.text}")
    return lines


def clip(text: str, is_match: bool) -> str:
    """ripgrep's `--max-columns 500`: a very long line is replaced by a marker (minified files)."""
    if len(text) > MAX_COLUMNS // 4 and len(text.encode("utf-8", "surrogateescape")) > MAX_COLUMNS:
        return OMITTED_MATCH if is_match else OMITTED_CONTEXT
    return text
