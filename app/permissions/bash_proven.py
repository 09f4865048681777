"""bypassPermissions with deny rules: only programs known to start nothing else may run.

A deny rule names a program (`Bash(rm:*)`); it holds only if no allowed program can start the
denied one. Listing the programs that do start others (`prlimit rm f`, `setarch x86_64 rm f`,
`/lib64/ld-linux-x86-64.so.2 /usr/bin/rm f`, `tmux new -d 'rm f'`, `run-parts dir`) can never
be complete, so the rule is the other way round: every program a part runs, its inner commands
included (the readings `deny_forms`, `sh -c`, `env -S` and option values produce), must be one
known to start no other program (optiondata.RUNS_NOTHING_ELSE), used without an option that
makes it start one, or a wrapper whose inner command those readings already hold. Anything
else is refused there: the deny rules cannot be shown to hold through it (a program started
under it may be a denied one, or read a denied file: `setarch x86_64 git show HEAD:.env`).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterable
from functools import lru_cache

from app.permissions.bash_git import git_place_risk, user_config_risk
from app.permissions.git_hooks import hook_risk
from tools.shell.commands import base_name
from tools.shell.optiondata import (
    MODELLED_WRAPPERS,
    RUNS_NOTHING_ELSE,
    RUNS_WITH_OPTION,
    VERSION_QUERIES,
)
from tools.shell.risk import opt_is, tar_options

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SYSTEM_BIN = ("/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/", "/usr/local/bin/")
# Programs that read their own configuration or the project's files as code even when only
# asked for their version or help (`pytest --help` imports conftest.py).
_LOADS_CODE_ON_HELP = frozenset({"pytest", "py.test", "tox", "nox", "gradle", "gradlew", "mvn",
                                 "sbt", "make", "gmake", "rake", "invoke", "scons"})  # fmt: skip


def is_version_query(words: tuple[str, ...]) -> bool:
    """`cargo --version`, `python3 -V`, `npm --help`: prints and starts nothing."""
    if len(words) != 2 or words[1] not in VERSION_QUERIES:
        return False
    word = words[0]
    name = base_name(word)
    if name in _LOADS_CODE_ON_HELP:
        return False
    if "/" in word:
        return word.startswith(_SYSTEM_BIN)
    return _which(name, os.environ.get("PATH", "")) is not None


@lru_cache(maxsize=512)
def _which(name: str, path: str) -> str | None:
    return shutil.which(name, path=path)


def unproven_program(readings: Iterable[tuple[str, ...]]) -> str:
    """Why some program these readings run is not known to start no other program, or ""."""
    for words in readings:
        if not words or _ASSIGNMENT.match(words[0]):
            continue
        why = _unproven(words)
        if why:
            return why
    return ""


def _unproven(words: tuple[str, ...]) -> str:
    word = words[0]
    name = base_name(word)
    if is_version_query(words):
        return ""
    if "/" in word and not word.startswith(_SYSTEM_BIN):
        return f"`{word}` is not a program of the system folders, so it may start any program"
    if name in MODELLED_WRAPPERS:
        return ""
    if name not in RUNS_NOTHING_ELSE:
        return (
            f"`{name}` is not known to start no other program, so what runs under it is unchecked"
        )
    risky = RUNS_WITH_OPTION.get(name, ())
    hit = next((a for a in tar_options(name, words[1:]) if opt_is(a, risky)), None)
    if hit is not None:
        return f"`{name} {hit}` starts another program"
    return ""


def _options(args: tuple[str, ...]) -> list[str]:
    out = []
    for a in args:
        if a == "--":
            break
        if a.startswith("-") and a != "-":
            out.append(a)
    return out


# --- git: the repository chooses programs too ------------------------------------------------

_GIT_MOVES = ("--git-dir", "--work-tree", "--namespace", "--exec-path", "--super-prefix")


def git_unproven(
    readings: Iterable[tuple[str, ...]],
    cwds: list[str],
    cwd_known: bool,
    project: str,
    expand: Callable[[str, str], tuple[str, ...]],
    home: str = "",
) -> str:
    """Why a git call among these readings may run a program its repository chooses (config
    keys, hooks, a repository in a subfolder or elsewhere), or "". The folders are every one a
    `cd` of the command may reach; `git -C DIR` adds DIR."""
    for words in readings:
        if not words or base_name(words[0]) != "git":
            continue
        if not cwd_known:
            return "runs git after a `cd` to a folder only known at run time"
        places = list(cwds)
        i = 1
        while i < len(words) and words[i].startswith("-"):
            opt = words[i]
            if opt.startswith(_GIT_MOVES):
                return f"`git {opt}` uses a repository that was not checked"
            if opt == "-C" or (opt.startswith("-C") and len(opt) > 2):
                target = words[i + 1] if opt == "-C" and i + 1 < len(words) else opt[2:]
                moved = [m for c in cwds for m in expand(target, c)]
                if not moved:
                    return "`git -C` names a folder only known at run time"
                places = moved
                i += 1
            i += 1
        why = user_config_risk(home or os.path.expanduser("~"))
        if why:
            return why
        if any(w in ("--global", "--system") for w in words) and "config" in words:
            return "`git config --global` writes git's user configuration, a protected file"
        for place in places:
            why = git_place_risk(place, project, False) or hook_risk(
                words, place, home or os.path.expanduser("~")
            )
            if why:
                return why
    return ""
