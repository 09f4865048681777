"""The config files a `git config` call writes.

A repository's config runs programs (`core.fsmonitor`, `core.pager`, aliases, `core.hooksPath`),
so `git config core.fsmonitor CMD` arms every later `git status` in that folder, the user's own
included. The write is to `.git/config` (or the file an option names), which the command line
never spells: the callers check these paths as the command's writes, against the protected
paths and the Edit deny rules, as they check `cp x .git/config`.

Which calls write: the subcommands of git 2.46 (`set`, `unset`, `rename-section`,
`remove-section`, `edit`, `replace-all`), and the older forms unless they are plainly a read (a
`--get*`/`--list` option, or one name with no value and no writing option). Anything unclear
counts as a write.
"""

from __future__ import annotations

import os

_READ_OPTIONS = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color",
                 "--get-colorbool", "--list", "-l")  # fmt: skip
_WRITE_OPTIONS = ("--unset", "--unset-all", "--add", "--replace-all", "--rename-section",
                  "--remove-section", "--edit", "-e")  # fmt: skip
_NEW_WRITES = frozenset({"set", "unset", "rename-section", "remove-section", "edit",
                         "replace-all"})  # fmt: skip
_NEW_READS = frozenset({"get", "list"})
# Options of `git config` that take the next word as their value.
_VALUE_OPTIONS = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment",
                            "--value", "--url"})  # fmt: skip
# git's global options that take the next word as their value.
_GLOBAL_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                           "--config-env", "--super-prefix"})  # fmt: skip


def git_config_writes(words: tuple[str, ...], cwd: str, home: str) -> list[str]:
    """Absolute paths of the config files this `git ... config ...` call may write, or []."""
    if not words or os.path.basename(words[0]) != "git":
        return []
    i, git_dir = 1, ""
    while i < len(words) and words[i].startswith("-"):
        word = words[i]
        name, eq, value = word.partition("=")
        if name in _GLOBAL_VALUE and not eq:
            value = words[i + 1] if i + 1 < len(words) else ""
            i += 1
        if name == "-C" and value:
            cwd = os.path.join(cwd, value)
        elif name == "--git-dir" and value:
            git_dir = os.path.join(cwd, value)
        i += 1
    if i >= len(words) or words[i] != "config":
        return []
    args = words[i + 1 :]
    if not _writes(args):
        return []
    return _files(args, cwd, home, git_dir)


def _writes(args: tuple[str, ...]) -> bool:
    first = next((a for a in args if not a.startswith("-")), "")
    if first in _NEW_WRITES:
        return True
    if first in _NEW_READS:
        return any(a.startswith(_WRITE_OPTIONS) for a in args)
    if any(a.startswith(_WRITE_OPTIONS) for a in args):
        return True
    if any(a.startswith(_READ_OPTIONS) for a in args):
        return False
    values, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in _VALUE_OPTIONS:
            skip = True
        elif not a.startswith("-"):
            values.append(a)
    return len(values) != 1  # one name reads it; none opens nothing (an error) or lists


def _files(args: tuple[str, ...], cwd: str, home: str, git_dir: str) -> list[str]:
    out: list[str] = []
    for k, a in enumerate(args):
        name, eq, value = a.partition("=")
        if name in ("-f", "--file"):
            value = value if eq else (args[k + 1] if k + 1 < len(args) else "")
            if value and value != "-":
                out.append(os.path.normpath(os.path.join(cwd, os.path.expanduser(value))))
        elif a == "--global":
            xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
            out += [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]
        elif a == "--system":
            out.append("/etc/gitconfig")
    if out:
        return out
    d = git_dir or _git_dir(cwd)
    files = [os.path.join(d, "config")]
    if "--worktree" in args:
        files.append(os.path.join(d, "config.worktree"))
    return [os.path.normpath(f) for f in files]


def _git_dir(cwd: str) -> str:
    """The git dir git would use from `cwd` (a `.git` folder, or where a gitfile points); when
    there is none, `cwd/.git` (a write there is still a write into a .git folder)."""
    d = os.path.abspath(cwd)
    while True:
        dot = os.path.join(d, ".git")
        if os.path.isdir(dot):
            return dot
        if os.path.isfile(dot):
            try:
                with open(dot, encoding="utf-8", errors="replace") as fh:
                    line = fh.read(4096).strip()
            except OSError:
                return dot
            if line.startswith("gitdir:"):
                return os.path.normpath(os.path.join(d, line[7:].strip()))
            return dot
        parent = os.path.dirname(d)
        if parent == d:
            return os.path.join(os.path.abspath(cwd), ".git")
        d = parent
