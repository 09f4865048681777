"""The pure-Python file walk: what `rg --files --hidden --no-require-git` would list.

Ignore files (`.gitignore`, `.git/info/exclude`, `.ignore`, `.rgignore`) apply in the folder that
holds them and below, including those of the search root's parents, the deepest deciding. An
ignored folder is not entered, so nothing inside it can be re-included, as in git.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tools.search.globs import Overrides

if TYPE_CHECKING:
    import pathspec

VCS_DIRS = (".git", ".svn", ".hg", ".bzr", ".jj")
_IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")


@dataclass(frozen=True)
class _Spec:
    folder: str
    spec: pathspec.GitIgnoreSpec


def _load_spec(folder: str) -> _Spec | None:
    lines: list[str] = []
    sources = [os.path.join(folder, ".gitignore")]
    if os.path.isdir(os.path.join(folder, ".git")):
        sources.append(os.path.join(folder, ".git", "info", "exclude"))
    sources += [os.path.join(folder, name) for name in _IGNORE_FILES[1:]]
    for source in sources:
        try:
            with open(source, encoding="utf-8", errors="replace") as f:
                lines.extend(f.read().splitlines())
        except OSError:
            continue
    if not lines:
        return None
    # pathspec (33 modules) loads with the first ignore file read, not with the Glob and Grep
    # tools' modules before a session's first request (issue 18).
    import pathspec

    return _Spec(folder, pathspec.GitIgnoreSpec.from_lines(lines))


def _is_ignored(specs: list[_Spec], path: str, is_dir: bool) -> bool:
    for item in reversed(specs):
        rel = os.path.relpath(path, item.folder).replace(os.sep, "/")
        if is_dir:
            rel += "/"
        decided = item.spec.check_file(rel).include
        if decided is not None:
            return decided
    return False


def _parent_specs(root: str) -> list[_Spec]:
    specs: list[_Spec] = []
    folder = os.path.dirname(root)
    while True:
        spec = _load_spec(folder)
        if spec is not None:
            specs.append(spec)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    specs.reverse()
    return specs


def walk_files(
    root: str,
    overrides: Overrides | None = None,
    file_type: re.Pattern[str] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[str]:
    """Absolute paths of the files under `root`, in sorted order, filtered like ripgrep."""
    overrides = overrides or Overrides([])
    specs = _parent_specs(root)
    own = _load_spec(root)
    yield from _walk(root, root, [*specs, own] if own else specs, overrides, file_type, cancelled)


def _walk(
    root: str,
    folder: str,
    specs: list[_Spec],
    overrides: Overrides,
    file_type: re.Pattern[str] | None,
    cancelled: Callable[[], bool],
) -> Iterator[str]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if cancelled():
            return
        if entry.name in VCS_DIRS:
            continue
        try:
            # Symlinks are not followed: ripgrep's default.
            is_dir = entry.is_dir(follow_symlinks=False)
            is_file = entry.is_file(follow_symlinks=False)
        except OSError:
            continue
        if not is_dir and not is_file:
            continue
        rel = os.path.relpath(entry.path, root).replace(os.sep, "/")
        decision = overrides.matched(rel, is_dir) if overrides else None
        if decision is False:
            continue
        if decision is None:
            if _is_ignored(specs, entry.path, is_dir):
                continue
            if not is_dir and file_type is not None and not file_type.match(entry.name):
                continue
        if is_dir:
            own = _load_spec(entry.path)
            yield from _walk(
                root, entry.path, [*specs, own] if own else specs, overrides, file_type, cancelled
            )
        else:
            yield entry.path
