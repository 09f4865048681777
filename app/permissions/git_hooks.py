"""Repository hooks: programs git runs on its own (`pre-commit`, `post-checkout`, and even
`post-index-change` under `git status`). Which hooks a subcommand may run is data
(tools/shell/githooks.py); which are installed is read here, from the hooks folder git would use
from a folder: `core.hooksPath` (the last one set, system < global < repository < worktree,
relative to the work tree) or `<common dir>/hooks`. An executable file that is not a `.sample`
is an installed hook.

A git command that may run an installed hook is not auto-allowed: not by the read-only set, not
by a rule that names git only (`Bash(git:*)`). A rule naming the subcommand (`Bash(git commit:*)`)
is the user's choice to run it with its hooks. (Claude Code looks at no hooks: its read-only
`git status` and any allowed `git commit` run them.)
"""

from __future__ import annotations

import os
import re

from tools.shell.githooks import ALL, hooks_run_by

_GENERIC = frozenset({"post-index-change", "reference-transaction", "pre-auto-gc"})
_CORE = re.compile(r"\s*\[\s*core\s*\]\s*$", re.IGNORECASE)
_SECTION = re.compile(r"\s*\[")
_HOOKS_PATH = re.compile(r"\s*hookspath\s*=\s*(.*?)\s*$", re.IGNORECASE)


def _hooks_path_in(path: str) -> str | None:
    """The last `core.hooksPath` a config file sets, or None."""
    try:
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    found = None
    in_core = False
    for line in text.splitlines():
        if _SECTION.match(line):
            in_core = bool(_CORE.match(line.split("#", 1)[0].split(";", 1)[0]))
            continue
        m = _HOOKS_PATH.match(line) if in_core else None
        if m:
            found = m.group(1).strip('"')
    return found


def _repository(cwd: str) -> tuple[str, str, str] | str:
    """(work tree, git dir, common dir) of the repository git finds from `cwd`, "" when there is
    none, or a sentence when it cannot be read."""
    d = os.path.realpath(cwd)
    while True:
        dot_git = os.path.join(d, ".git")
        if os.path.isdir(dot_git):
            gitdir = dot_git
            break
        if os.path.lexists(dot_git):
            try:
                with open(dot_git, encoding="utf-8") as fh:
                    line = fh.readline().strip()
            except (OSError, UnicodeDecodeError):
                return f"cannot read {dot_git}"
            gitdir = os.path.join(d, line.removeprefix("gitdir:").strip())
            break
        if os.path.isfile(os.path.join(d, "HEAD")) and os.path.isdir(os.path.join(d, "objects")):
            return d, d, d  # a bare repository
        parent = os.path.dirname(d)
        if parent == d:
            return ""
        d = parent
    common = gitdir
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as fh:
            common = os.path.join(gitdir, fh.read().strip())
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        return f"cannot read {gitdir}/commondir"
    return d, gitdir, common


def installed_hooks(cwd: str, home: str) -> tuple[list[str], str]:
    """(the hooks installed for the repository git uses from `cwd`, or why that is unknown)."""
    repo = _repository(cwd)
    if isinstance(repo, str):
        return [], repo
    work, gitdir, common = repo
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    configs = [os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig",
               os.path.join(xdg, "git", "config"),
               os.environ.get("GIT_CONFIG_GLOBAL") or os.path.join(home, ".gitconfig"),
               os.path.join(common, "config"), os.path.join(gitdir, "config.worktree")]  # fmt: skip
    hooks = os.path.join(common, "hooks")
    for config in configs:
        value = _hooks_path_in(config)
        if value:
            value = home + value[1:] if value == "~" or value.startswith("~/") else value
            hooks = os.path.join(work, value)
    try:
        names = os.listdir(hooks)
    except (FileNotFoundError, NotADirectoryError):
        return [], ""
    except OSError:
        return [], f"cannot read the hooks folder {hooks}"
    out = []
    for name in sorted(names):
        path = os.path.join(hooks, name)
        if name.endswith(".sample") or os.path.isdir(path):
            continue
        if os.access(path, os.X_OK):
            out.append(name)
    return out, ""


def _subcommand(words: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    return (words[i], words[i + 1 :]) if i < len(words) else ("", ())


def hook_risk(words: tuple[str, ...], cwd: str, home: str) -> str:
    """Why this git call may run a hook installed in its repository, or ""."""
    sub, args = _subcommand(words)
    wanted = hooks_run_by(sub, args)
    if not wanted:
        return ""
    names, why = installed_hooks(cwd, home)
    if why:
        return why
    hits = names if wanted == ALL else [n for n in names if n in wanted]
    if not hits:
        return ""
    # Name the hook the subcommand is known for (`pre-commit`), not the index one every writer runs.
    hits.sort(key=lambda n: (n in _GENERIC, n))
    return f"`git {sub}` may run the repository's hook {hits[0]}, which may run anything"


def names_subcommand(spec: str | None, words: tuple[str, ...]) -> bool:
    """Does an allow rule's text name this git call's subcommand (`Bash(git commit:*)`)?"""
    sub, _ = _subcommand(words)
    head = (spec or "").strip().removesuffix(":*").removesuffix("*").split()
    return len(head) >= 2 and head[0] == "git" and head[1] in (sub, sub + ":")
