"""Path normalisation for permission checks: `~`, `..`, symlinks, working folders, protected paths."""

from __future__ import annotations

import os
from collections.abc import Iterable

from tools.files.paths import kernel_normpath

# `.ssh`: authorized_keys grants logins, config's ProxyCommand runs programs for ssh and git.
PROTECTED_DIRS = frozenset({".git", ".lathe", ".claude", ".vscode", ".idea", ".ssh"})
PROTECTED_FILES = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".bash_aliases",  # sourced by Debian's and Ubuntu's default ~/.bashrc
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".zlogout",
        ".kshrc",
        ".cshrc",
        ".tcshrc",
        ".inputrc",
        ".gitconfig",
        "gitconfig",  # /etc/gitconfig, $(prefix)/etc/gitconfig
        ".gitmodules",
        ".ripgreprc",
        ".mcp.json",
        ".claude.json",  # Claude Code's state file: its MCP servers start in later sessions
        "config.fish",
    }
)
_PROTECTED_FILES_LOWER = frozenset(f.lower() for f in PROTECTED_FILES)
# Reads that never end or block: never auto-approved.
DEVICE_PATHS = frozenset(
    {
        "/dev/zero",
        "/dev/random",
        "/dev/urandom",
        "/dev/stdin",
        "/dev/tty",
        "/dev/console",
        "/dev/full",
        "/proc/self/fd/0",
        "/dev/fd/0",
        "/proc/kcore",
        "/dev/mem",
        "/dev/kmem",
    }
)


def absolute(path: str, cwd: str, home: str) -> str:
    """`~` expanded, made absolute against `cwd`, `.` removed, and `..` removed as the kernel
    does it: after a symlink, `..` leaves the link's target (other links are kept as written)."""
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    elif path.startswith("~"):
        path = os.path.expanduser(path)
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    norm = kernel_normpath(path)
    # POSIX keeps a leading `//`; for our purposes it is the root.
    return "/" + norm.lstrip("/") if norm.startswith("//") else norm


def candidates(path: str, cwd: str, home: str) -> tuple[str, ...]:
    """The path as written (normalised) and where its symlinks lead (if different)."""
    logical = absolute(path, cwd, home)
    try:
        real = os.path.realpath(logical)
    except (OSError, ValueError):
        real = logical
    return (logical,) if real == logical else (logical, real)


def is_unc(path: str) -> bool:
    return path.startswith("\\\\") or (path.startswith("//") and len(path) > 2 and path[2] != "/")


def inside(path: str, folders: Iterable[str]) -> bool:
    for folder in folders:
        if path == folder or path.startswith(folder.rstrip("/") + "/") or folder == "/":
            return True
    return False


def protected_reason(path: str) -> str:
    """Why writing `path` is never auto-approved, or ""."""
    # Compared case-blind: on macOS and Windows `.Git/config` is `.git/config`.
    parts = path.lower().split("/")
    for part in parts[:-1]:
        if part in PROTECTED_DIRS:
            return f"{part}/ is a protected folder"
    name = parts[-1]
    if name in PROTECTED_DIRS:
        return f"{name}/ is a protected folder"
    if name in PROTECTED_FILES or name.lower() in _PROTECTED_FILES_LOWER:
        return f"{name} is a protected file"
    return _config_file_reason(path, parts) or _git_dir_reason(path)


def memory_write_ok(cands: tuple[str, ...], folders: tuple[str, ...]) -> bool:
    """Whether a write to `cands` (a path's readings, paths.candidates) lands below one of an
    agent's memory folders and nowhere else: the folder and its two parents are no links (a
    link there could lead into `.git`), every reading lies below it, the file's real place
    too, and nothing below the folder is itself protected (`NAME/.git/config`)."""
    for folder in folders:
        chain = (folder, os.path.dirname(folder), os.path.dirname(os.path.dirname(folder)))
        if not os.path.isabs(folder) or any(os.path.islink(p) for p in chain):
            continue
        real_folder = os.path.realpath(folder)
        forms = (folder.rstrip("/") + "/", real_folder.rstrip("/") + "/")
        if not all(any(c.startswith(f) for f in forms) for c in cands):
            continue
        real = os.path.realpath(cands[-1])
        if not real.startswith(forms[1]):
            continue
        parts = real[len(forms[1]) :].lower().split("/")
        if any(p in PROTECTED_DIRS for p in parts) or parts[-1] in _PROTECTED_FILES_LOWER:
            continue
        if _git_dir_reason(real) or _config_file_reason(real, real.lower().split("/")):
            continue
        return True
    return False


def _git_dir_reason(path: str) -> str:
    """A git dir under another name (`git clone --separate-git-dir=.hg2`, the target of a
    gitfile, a bare repository): its config and hooks run programs as `.git`'s do. Found by
    content, as git finds it: a HEAD file beside an objects folder."""
    d = path
    while d.startswith("/") and len(d) > 1:
        if os.path.isfile(os.path.join(d, "HEAD")) and os.path.isdir(os.path.join(d, "objects")):
            return f"{d} is a git repository's folder (like .git), a protected folder"
        d = os.path.dirname(d)
    return ""


# Settings files of lathe itself, by the folder they sit in (`~/.config/lathe/`).
_LATHE_SETTINGS = frozenset({"settings.toml", "settings.local.toml", "settings.json"})


def _config_file_reason(path: str, parts: list[str]) -> str:
    """git's user config outside `~/.gitconfig` (XDG `git/config`, `$GIT_CONFIG_GLOBAL`) sets
    programs git runs; lathe's own settings hold the deny rules of every later session."""
    if len(parts) >= 2 and parts[-2:] == ["git", "config"]:
        return "git/config is git's user configuration, a protected file"
    if len(parts) >= 2 and parts[-1] in _LATHE_SETTINGS and parts[-2] == "lathe":
        return "lathe's settings are a protected file"
    for var in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "LATHE_POLICY_FILE"):
        value = os.environ.get(var)
        if value and os.path.abspath(value) == path:
            return f"{var} names it: a protected file"
    config_dir = os.environ.get("LATHE_CONFIG_DIR")
    in_config_dir = config_dir and os.path.dirname(path) == os.path.abspath(config_dir).rstrip("/")
    if in_config_dir and parts[-1] in _LATHE_SETTINGS:
        return "lathe's settings are a protected file"
    return ""


def protected_any(path: str, cwd: str, home: str) -> str:
    for c in candidates(path, cwd, home):
        reason = protected_reason(c)
        if reason:
            return reason
    return ""
