"""Rules for runners of project scripts hold for the scripts as the session found them.

`Bash(npm run test:*)` allows what package.json's `scripts.test` says. A file like that which
changed during the session (`Write package.json` with `"test": "rm victim"`, auto-allowed in
acceptEdits) would make the rule allow a command nobody has seen, so a runner whose script files
(tools/shell/optiondata.SCRIPT_FILES: package.json, Makefile, pyproject.toml, justfile...) changed
since the session started is not auto-allowed by a rule: it asks (dontAsk denies). Without rules,
bypassPermissions with deny rules refuses runners already (bash_bypass), so acceptEdits is never
looser than bypass here.

"Changed" is the inode change time (st_ctime) after the session's start: every write, rename,
link or `touch -d` sets it to now, and no program can set it back, so it catches an edit by any
tool (Write, Edit, Bash, a program the user allowed). The start is taken once per project per
process, at the first permission context, before any tool runs. An edit the user makes in their
editor during the session counts too: asked, never silently allowed. The test code a runner runs
(`npm run test` runs the tests) is what the rule allows by design and is not tracked.
"""

from __future__ import annotations

import fnmatch
import os
import time
from typing import TYPE_CHECKING

from app.permissions.project_scripts import changed_in_project, is_script_file, path_folders
from tools.shell.commands import base_name
from tools.shell.optiondata import SCRIPT_FILES

if TYPE_CHECKING:
    from app.permissions.context import PermissionContext

_STARTS: dict[str, int] = {}
_MAX_LEVELS = 32


def runs_scripts(words: tuple[str, ...]) -> bool:
    """Is this a runner of project scripts (its script files are in SCRIPT_FILES)?"""
    return bool(words) and base_name(words[0]) in SCRIPT_FILES


def session_start(project_dir: str) -> int:
    """When this process's session in `project_dir` started (ns since the epoch), set once."""
    key = os.path.realpath(project_dir or ".")
    return _STARTS.setdefault(key, time.time_ns())


def _changed_after(path: str, start: int) -> bool:
    for follow in (False, True):
        try:
            st = os.stat(path, follow_symlinks=follow)
        except (OSError, ValueError):
            continue
        if st.st_ctime_ns > start:
            return True
    return False


def _folders(cwd: str, project: str) -> list[str]:
    """The folder a runner starts in and each one above it, up to the project's top."""
    out = []
    d = os.path.realpath(cwd)
    top = os.path.realpath(project) if project else d
    for _ in range(_MAX_LEVELS):
        out.append(d)
        if d == top or not d.startswith(top.rstrip("/") + "/"):
            break
        d = os.path.dirname(d)
    return out


def _in_folder(folder: str, names: tuple[str, ...]) -> list[str]:
    out = [os.path.join(folder, n) for n in names if "*" not in n]
    by_dir: dict[str, list[str]] = {}
    for n in names:
        if "*" in n:
            sub, _, pattern = n.rpartition("/")  # `node_modules/.bin/*`: a pattern in a sub-folder
            by_dir.setdefault(sub, []).append(pattern)
    for sub, patterns in by_dir.items():
        where = os.path.join(folder, sub) if sub else folder
        try:
            entries = os.listdir(where)
        except OSError:
            entries = []
        out += [
            os.path.join(where, e) for e in entries if any(fnmatch.fnmatch(e, p) for p in patterns)
        ]
    return out


def changed_script(
    words: tuple[str, ...],
    cwd: str,
    project: str,
    start: int,
    pending: frozenset[str] = frozenset(),
) -> str:
    """Which script file of this runner call changed since `start`, or is written by another
    part of the same command (`pending`: absolute paths), as a sentence; or ""."""
    if not words:
        return ""
    name = base_name(words[0])
    names = SCRIPT_FILES.get(name)
    if names is None:
        return ""
    paths: list[str] = []
    folders = _folders(cwd, project)
    for folder in folders:
        paths += _in_folder(folder, names)
    for written in sorted(pending):
        # `printf ... > Makefile && make test`: decided before the write, run after it.
        real = os.path.join(os.path.realpath(os.path.dirname(written)), os.path.basename(written))
        rels = [os.path.relpath(real, f) for f in folders]
        if written in paths or any(fnmatch.fnmatch(r, n) for r in rels for n in names):
            return f"another part of this command writes {written}, which `{name}` runs"
    # `make -f x.mk`, `npm --prefix dir`, `make -C dir`: operands and option values naming a file
    # or folder are read as well.
    for w in words[1:]:
        value = w.split("=", 1)[1] if w.startswith("-") and "=" in w else w
        if not value or value.startswith("-"):
            continue
        full = os.path.join(cwd, value)
        if os.path.isdir(full):
            paths += _in_folder(full, names)
        elif os.path.isfile(full):
            paths.append(full)
    for path in paths:
        if _changed_after(path, start):
            return (
                f"{path} changed during this session and `{name}` runs what it defines, which "
                "no rule has seen"
            )
    return ""


def scripts_changed(
    words: tuple[str, ...],
    cwds: list[str],
    cwd_known: bool,
    pc: PermissionContext,
    pending: frozenset[str] = frozenset(),
) -> str:
    """Why a rule allowing this part may not: a script file it runs changed (or its folder is
    unknown), or ""."""
    if base_name(words[0]) not in SCRIPT_FILES:
        return ""
    if not cwd_known:
        return "runs project scripts after a `cd` to a folder only known at run time"
    for c in cwds:
        why = changed_script(words, c, pc.project_dir, pc.session_started_ns, pending)
        if why:
            return why
    # Workspaces, members, included files, a Makefile running npm: a runner reaches script files
    # anywhere in the project (project_scripts), written before or by this command.
    name = base_name(words[0])
    top = os.path.realpath(pc.project_dir) if pc.project_dir else ""
    for written in sorted(pending):
        real = os.path.join(os.path.realpath(os.path.dirname(written)), os.path.basename(written))
        if (not top or real.startswith(top.rstrip("/") + "/")) and is_script_file(real, name):
            return f"another part of this command writes {written}, which `{name}` may run"
    return changed_in_project(pc.project_dir, pc.session_started_ns, path_folders(name))
