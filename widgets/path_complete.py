"""Fuzzy completion of `@path` in the prompt: the files under the working folder, best first.

The listing is made once, on the first `@`, and bounded (MAX_FILES, skipping VCS, virtualenv and
dependency folders) so a huge tree never stalls a key press. Matching: the query's characters in
order (a subsequence); a match in the file name beats one spread across folders, a contiguous
match beats a scattered one, shorter paths win ties.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_FILES = 20_000
MAX_SHOWN = 8
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
        "dist",
        "build",
        ".next",
        "target",
    }
)


def _score(query: str, path: str) -> tuple[int, int, int] | None:
    q = query.lower()
    p = path.lower()
    name = p.rsplit("/", 1)[-1]
    if q in name:
        return (0, name.index(q), len(p))
    if q in p:
        return (1, p.index(q), len(p))
    i = 0
    gaps = 0
    last = -1
    for ch in q:
        found = p.find(ch, i)
        if found < 0:
            return None
        if last >= 0 and found != last + 1:
            gaps += 1
        last = found
        i = found + 1
    return (2, gaps, len(p))


class PathIndex:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._paths: list[str] | None = None

    def paths(self) -> list[str]:
        if self._paths is None:
            self._paths = self._walk()
        return self._paths

    def _walk(self) -> list[str]:
        out: list[str] = []
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            rel = os.path.relpath(folder, self.root)
            prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
            if prefix:
                out.append(prefix)
            out.extend(prefix + f for f in sorted(files))
            if len(out) >= MAX_FILES:
                break
        return out[:MAX_FILES]

    def matches(self, query: str, limit: int = MAX_SHOWN) -> list[str]:
        if not query:
            return self.paths()[:limit]
        scored = [(s, p) for p in self.paths() if (s := _score(query, p)) is not None]
        scored.sort()
        return [p for _, p in scored[:limit]]


def quote(path: str) -> str:
    """A path as the prompt writes it: `@"a b.txt"` when it has spaces."""
    return f'@"{path}"' if " " in path else f"@{path}"
