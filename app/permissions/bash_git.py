"""Git runs code the repository chooses: `core.fsmonitor`, `core.pager`, filters, external diffs
and aliases all come from the repository's own config. A git call is auto-allowed (by the read-
only set or by a rule) only where the repository is known: no `cd` before it, no options that move
it, the repository found from the working folder is the project's own (not a bare repository or a
`.git` shipped in a subfolder), and its config sets none of the keys that run programs.

With a Read deny rule in force, git calls that print file content under other names (objects,
other revisions, `--no-index` paths) are not auto-allowed either: the rule cannot see them.
"""

from __future__ import annotations

import os
import re

from app.permissions.git_nested import nested_git_dirs
from tools.shell.optiondata import GIT_PATCH_OPTS, GIT_SAFE_GLOBAL
from tools.shell.risk import opt_is

# Config keys (last component, lower case) that make a read-only git command run a program.
# (`core.hooksPath` only moves the hooks: app/permissions/git_hooks.py checks what they run.)
_RUNS = frozenset(
    {
        "fsmonitor", "pager", "textconv", "command", "clean", "smudge", "process", "external",
        "program", "alternaterefscommand", "uploadpack", "receivepack", "sshcommand", "askpass",
        "editor", "worktree", "gitproxy", "driver", "difffilter", "path",
        "helper", "cmd", "tool", "proxy",
    }
)  # fmt: skip
_RUNS_SECTIONS = frozenset({"pager", "include", "includeif"})
_FALSE = frozenset({"", "false", "no", "off", "0"})
# Environment of lathe itself that moves git elsewhere (Bash inherits it).
_ENV_MOVES_GIT = ("GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG", "GIT_CONFIG_GLOBAL",
                  "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
                  "GIT_EXEC_PATH", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_INDEX_FILE")  # fmt: skip


def git_subcommand(words: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """(`status`, its arguments) for `git [safe global options] status ...`."""
    i = 1
    while i < len(words) and words[i] in GIT_SAFE_GLOBAL:
        i += 1
    if i >= len(words):
        return "", ()
    return words[i], words[i + 1 :]


def git_place_risk(cwd: str, project_dir: str, moved: bool) -> str:
    """Why the repository git would use from `cwd` may run code nobody chose, or ""."""
    if moved:
        return "runs git after a `cd`, in a repository that was not checked"
    env = next((k for k in _ENV_MOVES_GIT if k in os.environ), None)
    if env is not None:
        return f"runs git with {env} set in the environment"
    # Not cached: the answer depends on files an earlier command may have changed, and costs a
    # few stats and one small read (git calls are not on the hot path of the decision bench).
    return _repo_risk(os.path.realpath(cwd), os.path.realpath(project_dir or cwd))


def _repo_risk(cwd: str, project: str) -> str:
    d = cwd
    while True:
        dot_git = os.path.join(d, ".git")
        if os.path.lexists(dot_git):
            if d != project and d.startswith(project.rstrip("/") + "/"):
                return f"git would use the repository at {d}, inside the project, not its own"
            return _config_risk(dot_git, d)
        if _looks_bare(d):
            return f"git would use the bare repository at {d}"
        parent = os.path.dirname(d)
        if parent == d:
            return ""  # no repository: git only says so
        d = parent


def _looks_bare(d: str) -> bool:
    return (
        os.path.isfile(os.path.join(d, "HEAD"))
        and os.path.isdir(os.path.join(d, "objects"))
        and os.path.isdir(os.path.join(d, "refs"))
    )


def _config_risk(dot_git: str, root: str) -> str:
    if os.path.isdir(dot_git):
        gitdir = dot_git
    else:
        try:
            with open(dot_git, encoding="utf-8") as fh:
                line = fh.readline().strip()
        except (OSError, UnicodeDecodeError):
            return f"cannot read {dot_git}"
        if not line.startswith("gitdir:"):
            return f"{dot_git} does not name a repository"
        gitdir = os.path.join(root, line[len("gitdir:") :].strip())
    common = gitdir
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as fh:
            common = os.path.join(gitdir, fh.read().strip())
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        return f"cannot read {gitdir}/commondir"
    paths = [os.path.join(common, "config"), os.path.join(gitdir, "config.worktree")]
    for path in paths:
        why = _file_risk(path)
        if why:
            return why
    # Submodules' configs: `git status` and `git diff` recurse into them (`.git/modules/s/config`,
    # and the git dir of every gitlink, wherever its gitfile points). git itself sets their
    # `core.worktree`, which runs nothing.
    subs: list[str] = []
    for base, dirs, files in os.walk(os.path.join(common, "modules")):
        dirs[:] = [d for d in dirs if d not in ("objects", "refs", "logs", "hooks", "info")]
        subs += [os.path.join(base, f) for f in files if f in ("config", "config.worktree")]
    nested = nested_git_dirs(root, gitdir)
    if nested is None:
        return f"cannot read the gitlinks of the repository at {root}"
    for sub in nested:
        subs += [os.path.join(sub, "config"), os.path.join(sub, "config.worktree")]
        if os.path.isfile(os.path.join(sub, "commondir")):
            return f"the nested repository {sub} shares another git dir"
    for path in subs:
        why = _file_risk(path, submodule=True)
        if why:
            return why
    return ""


# Keys users commonly set in their own git config that read-only git calls do not run (a
# credential helper, an editor, a pager: git pages only a terminal, lathe's output is none).
_USER_KEYS = frozenset({"helper", "editor", "tool", "pager", "cmd", "path", "driver"})


def user_config_risk(home: str) -> str:
    """git's configs outside the repository (global, XDG, system, `$GIT_CONFIG_GLOBAL`): why one
    sets a key that makes a read-only git call run a program, or "". For bypassPermissions with
    deny rules: those files are protected from writes, but one written before still counts."""
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    paths = [os.path.join(home, ".gitconfig"), os.path.join(home, ".config", "git", "config"),
             os.path.join(xdg, "git", "config") if xdg else "", "/etc/gitconfig",
             os.environ.get("GIT_CONFIG_GLOBAL", "")]  # fmt: skip
    for path in filter(None, paths):
        why = _file_risk(path, _USER_KEYS)
        if why:
            return why
    return ""


_SECTION_RE = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\]\s*(.*)$')
_KEY_RE = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")


def _file_risk(path: str, ignore: frozenset[str] = frozenset(), submodule: bool = False) -> str:
    try:
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError):
        return f"cannot read the git config {path}"
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            m = _SECTION_RE.match(line)
            if m is None:
                return f"cannot parse the git config {path}"
            section = m.group(1).lower()
            line = m.group(2).strip()
            if not line or line[0] in "#;":
                continue
        m = _KEY_RE.match(line)
        if m is None:
            return f"cannot parse the git config {path}"
        key, value = m.group(1).lower(), (m.group(2) or "true").strip().strip('"').lower()
        runs = section in _RUNS_SECTIONS or (key in _RUNS and value not in _FALSE)
        if section == "alias" and value.startswith("!"):
            runs = True
        if submodule and section == "core" and key == "worktree":
            runs = False
        if runs and key not in ignore and not (ignore and section == "pager"):
            return f"the git config {path} sets {section}.{key}, which runs a program"
    return ""


def git_reveal_risk(words: tuple[str, ...]) -> str:
    """With a Read deny rule in force: why this git call may print denied content under another
    name (`git show HEAD:secrets/x`, `git log -p`, `git diff --no-index`), or ""."""
    sub, args = git_subcommand(words)
    names_only = ("--stat", "--name-only", "--name-status", "--shortstat", "--numstat", "-s",
                  "--no-patch", "--summary", "--oneline")  # fmt: skip
    if (
        sub == "show"
        and any(a in names_only for a in args)
        and not any(opt_is(a, ("-p", "--patch", "-u")) for a in args if a.startswith("-"))
        and not any(":" in a for a in args if not a.startswith("-"))
    ):
        return ""  # commit metadata and file names, no content
    if sub in ("show", "cat-file", "grep"):
        return f"`git {sub}` prints file content that a Read deny rule cannot see"
    if sub in _EXPORTS_CONTENT:
        return f"`git {sub}` writes out the content of revisions, which a Read deny rule cannot see"
    if any(a == "--no-index" for a in args):
        return "`--no-index` reads paths outside what git tracks"
    operands = [a for a in args if not a.startswith("-")]
    if sub in ("diff", "log", "whatchanged", "reflog", "blame", "stash") and any(
        ":" in a for a in operands
    ):
        return f"`git {sub}` names a file inside a revision"
    options = [a for a in args if a.startswith("-")]
    if sub in (
        "log",
        "whatchanged",
        "reflog",
        "stash",
        "diff-tree",
        "diff-index",
        "diff-files",
    ) and any(opt_is(a, GIT_PATCH_OPTS) for a in options):
        return f"`git {sub}` with a patch prints the content of past revisions"
    if sub == "status" and any(opt_is(a, ("-v", "--verbose")) for a in options):
        return "`git status -v` prints the changes of every tracked file, denied ones included"
    if sub == "diff" and "--" not in args:
        only_names = any(a in names_only or opt_is(a, _DIFF_NAMES) for a in options)
        if not only_names or any(opt_is(a, GIT_PATCH_OPTS) for a in options):
            # Tracked or staged files are printed under no path the Read deny rule sees; a
            # pathspec after `--` is checked as the paths it names.
            return "`git diff` without a pathspec prints every changed file, denied ones included"
    return ""


# Subcommands that print or write whole revisions (an archive, a stream, patches, a blob).
_EXPORTS_CONTENT = frozenset({"archive", "fast-export", "format-patch", "bundle", "range-diff",
                              "request-pull", "unpack-file", "notes"})  # fmt: skip
_DIFF_NAMES = ("--stat", "--name-only", "--name-status", "--shortstat", "--numstat",
               "--dirstat", "--summary", "--quiet", "--exit-code", "--check", "--no-patch")  # fmt: skip
