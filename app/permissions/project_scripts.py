"""Script files changed anywhere in the project, for runners whose rules hold for scripts as found.

scriptfiles.py checks the script files a runner reads in the folder it starts in and above it.
A runner also reaches script files elsewhere on its own: `npm run test --ws` (or `.npmrc`'s
`workspaces=true`, or a root script `npm run test --workspaces`) runs every workspace's
package.json, `cargo test` builds every workspace member and path dependency (their build.rs
run), gradle's settings includes sub-projects, maven's modules, a solution its projects, make's
`include` and `$(MAKE) -C sub`, and a checked-in Makefile's `test: ; npm test` runs package.json.
Which of these a call reaches depends on configuration, options, environment and scripts the
analysis does not read, so the whole class is judged at once: a rule allowing a runner holds
only while no script file of any runner (tools/shell/optiondata.SCRIPT_FILES) anywhere in the
project changed during the session. The price is an approval after the model edits a script
file (say `packages/ui/package.json`) and then runs an allowed runner, which in a monorepo may
well run what it just wrote.

PATH folders (`node_modules/.bin`, `.venv/bin`) are checked in every folder for the runners that
put them first on the PATH (a workspace's `sub/node_modules/.bin/node` runs under `npm --ws`),
not for other runners: `uv sync` refreshing `.venv/bin` does not make `make test` ask. The walk
skips folders nothing reads scripts from: `.git`, `node_modules` (its `.bin` is checked as a PATH
folder), virtual environments (a folder holding `pyvenv.cfg`) and folders tagged as caches
(`CACHEDIR.TAG`: cargo's target, tool caches). A project with more than
_MAX_FOLDERS folders left is not walked: the rule does not hold (fail closed), said in the reason.
"""

from __future__ import annotations

import fnmatch
import os
import re

from tools.shell.optiondata import SCRIPT_FILES

_MAX_FOLDERS = 20000
_SKIP = frozenset({".git", "node_modules"})


def _names() -> tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]:
    """Every runner's script-file names: plain names, `*` patterns, and names under a folder."""
    plain: set[str] = set()
    patterns: set[str] = set()
    nested: set[str] = set()
    for names in SCRIPT_FILES.values():
        for n in names:
            if "/" in n:
                nested.add(n)
            elif "*" in n:
                patterns.add(n)
            else:
                plain.add(n)
    return frozenset(plain), tuple(sorted(patterns)), tuple(sorted(nested))


_PLAIN, _PATTERNS, _NESTED = _names()
# One compiled pattern for every `*` name: the walk tests each entry of every folder.
_PATTERN_RE = re.compile("|".join(fnmatch.translate(p) for p in _PATTERNS) or "(?!)")
# A PATH folder (`node_modules/.bin`) counts for the runners that put it on the PATH; a nested
# definition file (`.cargo/config.toml`, `.mvn/maven.config`) counts for all.
_PATH_FOLDERS = ("node_modules/", ".venv/")
_CONFIGS = tuple(n for n in _NESTED if not n.startswith(_PATH_FOLDERS))


def path_folders(runner: str) -> tuple[str, ...]:
    """The PATH folders this runner puts first for what it runs (`node_modules/.bin`)."""
    return tuple(n for n in SCRIPT_FILES.get(runner, ()) if n.startswith(_PATH_FOLDERS))


def is_script_file(path: str, runner: str) -> bool:
    """Is this file one `runner` would reach by name: any runner's definition file (package.json,
    Makefile, x.mk, .cargo/config.toml...) or an entry of one of its PATH folders?"""
    base = os.path.basename(path)
    if base in _PLAIN or _PATTERN_RE.match(base):
        return True
    parts = path.replace(os.sep, "/").split("/")
    for n in _CONFIGS + path_folders(runner):
        k = n.count("/") + 1
        if len(parts) >= k and fnmatch.fnmatch("/".join(parts[-k:]), n):
            return True
    return False


def _changed(path: str, start: int) -> bool:
    for follow in (False, True):
        try:
            st = os.stat(path, follow_symlinks=follow)
        except (OSError, ValueError):
            continue
        if st.st_ctime_ns > start:
            return True
    return False


def _nested_paths(folder: str, entries: set[str], nested: tuple[str, ...]) -> list[str]:
    """The names-under-a-folder (`node_modules/.bin/*`, `.cargo/config.toml`) present here."""
    out: list[str] = []
    for n in nested:
        first = n.split("/", 1)[0]
        if first not in entries:
            continue
        sub, _, last = n.rpartition("/")
        if "*" not in last:
            out.append(os.path.join(folder, n))
            continue
        where = os.path.join(folder, sub)
        try:
            listed = os.listdir(where)
        except OSError:
            continue
        out += [os.path.join(where, e) for e in listed if fnmatch.fnmatch(e, last)]
    return out


def changed_in_project(project: str, start: int, bins: tuple[str, ...] = ()) -> str:
    """A sentence naming a script file anywhere in `project` changed since `start` (any runner's
    definition files, and the PATH folders `bins` in every folder), or why the project could not be
    checked; "" when none changed."""
    if not project:
        return ""
    top = os.path.realpath(project)
    todo = [top]
    seen = 0
    while todo:
        folder = todo.pop()
        seen += 1
        if seen > _MAX_FOLDERS:
            return (
                f"the project has more than {_MAX_FOLDERS} folders, too many to check that no "
                "script file a runner reads changed during this session"
            )
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        names = {e.name for e in entries}
        # A cache is read by nothing; a virtual environment only through its PATH folder.
        cache = folder != top and "CACHEDIR.TAG" in names
        venv = folder != top and "pyvenv.cfg" in names
        candidates: list[str] = []
        if not cache and not venv:
            candidates = [e.path for e in entries if e.name in _PLAIN or _PATTERN_RE.match(e.name)]
            candidates += _nested_paths(folder, names, _CONFIGS + bins)
        for path in candidates:
            if _changed(path, start):
                return (
                    f"{path} changed during this session, and runners reach script files "
                    "anywhere in the project (workspaces, members, included files), which no "
                    "rule has seen"
                )
        if cache or venv:
            continue
        for e in entries:
            if e.name in _SKIP:
                continue
            try:
                if e.is_dir(follow_symlinks=False):
                    todo.append(e.path)
            except OSError:
                continue
    return ""
