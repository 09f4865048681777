"""File names matching a glob: `rg --files` or the Python walk, newest first."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from tools.abort import AbortSignal
from tools.search.globs import compile_override
from tools.search.rg import BASE_FLAGS, glob_args, rg_failure, run_rg
from tools.search.walk import walk_files

_MAGIC = re.compile(r"[*?\[{]")


@dataclass(frozen=True)
class GlobQuery:
    root: str
    pattern: str


def split_pattern(pattern: str, root: str) -> GlobQuery:
    """Move a pattern's literal leading folders (`/abs/dir/**/*.py`, `../x/*.ts`) into the root."""
    if not (os.path.isabs(pattern) or pattern.startswith("../") or pattern.startswith("~")):
        return GlobQuery(root, pattern.removeprefix("./"))
    pattern = os.path.expanduser(pattern)
    parts = pattern.split("/")
    literal: list[str] = []
    for index, part in enumerate(parts[:-1]):
        if _MAGIC.search(part):
            rest = "/".join(parts[index:])
            break
        literal.append(part)
    else:
        rest = parts[-1]
    base = "/".join(literal) or "/"
    base = base if os.path.isabs(base) else os.path.join(root, base)
    # Anchored: `/abs/dir/*.py` means the files of that folder, not of every folder below it.
    return GlobQuery(os.path.normpath(base), "/" + rest)


def _newest_first(paths: list[str]) -> list[str]:
    def key(path: str) -> tuple[int, str]:
        try:
            return (-os.stat(path).st_mtime_ns, path)
        except OSError:
            return (0, path)

    return sorted(paths, key=key)


def _filter(root: str, relative: list[str], pattern: str) -> list[str]:
    # The pattern filters the listing instead of being an rg `--glob`: as a glob, `**/*` would
    # whitelist ignored folders too (node_modules), and Glob must respect .gitignore.
    regex = compile_override(pattern).regex
    return _newest_first([os.path.join(root, rel) for rel in relative if regex.match(rel)])


async def glob_rg(rg: str, query: GlobQuery, abort: AbortSignal) -> list[str]:
    args = [*BASE_FLAGS, "--files", "--null", *glob_args([]), "--", "./"]
    output = await run_rg(rg, args, query.root, abort)
    failure = rg_failure(output)
    if failure is not None:
        raise failure
    text = output.stdout.decode("utf-8", "replace")
    return _filter(query.root, [p.removeprefix("./") for p in text.split("\0") if p], query.pattern)


def glob_python(query: GlobQuery, cancelled: Callable[[], bool]) -> list[str]:
    relative = [
        os.path.relpath(path, query.root).replace(os.sep, "/")
        for path in walk_files(query.root, None, None, cancelled)
    ]
    return _filter(query.root, relative, query.pattern)
