"""Programs found through a relative PATH entry, which bash resolves in the folder it runs in.

`PATH=./node_modules/.bin:...` (a common JS setup), `bin:` or an empty entry (`::`, the current
folder): after `cd sub`, bash looks for `ls` in `sub/node_modules/.bin` first. The write checks
protect the PATH folders of the folder a command starts in (pathprograms.path_write_reason), not
those of every folder a later command may `cd` to, so the model can put `sub/node_modules/.bin/ls`
there (acceptEdits allows the write) and run it as `cd sub && ls` under `Bash(ls:*)`.

So at run time: when PATH holds a relative entry, every command word is resolved as bash would
in each folder the command may run in (its start and every `cd`/`pushd` target, `env -C DIR`),
and a program found through a relative entry that was created or changed during this session
is not auto-allowed by anything (it asks; bypassPermissions under deny rules refuses it). A
command whose folder only the shell knows (`cd "$D"`) asks too. Programs placed before the
session are the project's own, as they are in the start folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from app.permissions.pathprograms import bash_path, resolve
from tools.decisions import DecisionReason, PermissionDecision
from tools.shell.commands import allow_form

if TYPE_CHECKING:
    from app.permissions.context import PermissionContext
    from tools.shell import ShellAnalysis

_CHDIR = ("cd", "pushd")


def relative_entries(path: str) -> tuple[str, ...]:
    """PATH's entries bash resolves against the current folder ("" is the folder itself)."""
    return tuple(e for e in path.split(":") if not e.startswith(("/", "~")))


def _changed(path: str, start: int) -> bool:
    for follow in (False, True):
        try:
            if os.stat(path, follow_symlinks=follow).st_ctime_ns > start:
                return True
        except (OSError, ValueError):
            continue
    return False


def _env_chdir(words: tuple[str, ...]) -> str | None:
    """`env -C DIR cmd` / `env --chdir=DIR cmd`: the folder cmd runs in, or None."""
    if not words or os.path.basename(words[0]) != "env":
        return None
    for i, w in enumerate(words[1:], start=1):
        if w in ("-C", "--chdir") and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--chdir="):
            return w.split("=", 1)[1]
        if w.startswith("-C") and len(w) > 2:
            return w[2:]
    return None


def planted_program(
    words_list: Iterable[tuple[str, ...]],
    dynamic_cd: bool,
    cwds: list[str],
    home: str,
    start: int,
    expand: Callable[[str, str], Iterable[str]],
) -> str:
    """Why a command word may run a program put in a relative PATH folder during the session,
    or "". `cwds`: the start folder and every folder a `cd` may move to; `dynamic_cd`: a `cd`
    whose target only the shell knows."""
    path = bash_path()
    relative = relative_entries(path)
    if not relative:
        return ""
    all_words = list(words_list)
    folders = list(cwds)
    for words in all_words:
        target = _env_chdir(words)
        if target is not None:
            for c in list(folders):
                folders += [f for f in expand(target, c) if f not in folders]
    if dynamic_cd:
        return (
            "runs a program after a cd to a folder only known at run time, and PATH has "
            f"folders relative to it ({':'.join(relative) or 'the current folder'})"
        )
    for c in folders:
        local = {os.path.normpath(os.path.join(c, e)) if e else c for e in relative}
        for words in all_words:
            if not words or "/" in words[0] or words[0] in _CHDIR:
                continue
            file = resolve(words[0], c, home, path)
            if file is not None and os.path.dirname(file) in local and _changed(file, start):
                return (
                    f"`{words[0]}` in {c} runs {file}, found through PATH's relative entry and "
                    "put there during this session"
                )
    return ""


def planted_decision(
    analysis: ShellAnalysis,
    words_list: Iterable[tuple[str, ...]],
    cwds: list[str],
    pc: PermissionContext,
    expand: Callable[[str, str], Iterable[str]],
) -> PermissionDecision | None:
    """planted_program's answer for a Bash call: asked (dontAsk and plan: denied), refused in
    bypassPermissions under deny rules (nothing else would stop it there), nothing in bypass
    without rules."""
    dynamic_cd = False
    for part in (*analysis.parts, *analysis.nested):
        words = allow_form(part.words) or part.words
        if words and words[0] in (*_CHDIR, "popd") and (len(words) != 2 or part.dynamic):
            dynamic_cd = True
    why = planted_program(words_list, dynamic_cd, cwds, pc.home, pc.session_started_ns, expand)
    if not why:
        return None
    reason = DecisionReason("check", why, part=analysis.command[:200])
    if pc.mode == "bypassPermissions":
        if not any(r.specifier is not None for r in pc.deny):
            return None
        return PermissionDecision.deny(why, reason)
    if pc.mode in ("dontAsk", "plan"):  # nothing is asked in these modes
        return PermissionDecision.deny(
            f"{why} ({pc.mode} mode denies what is not pre-allowed)", reason
        )
    return PermissionDecision.ask(why, reason)
