"""git commands that write the work tree from a patch or a revision: which paths they write is in
the patch or the revision, not on the command line, so the protected-path check of the command's
words never sees `.lathe/settings.toml` in `git apply p.diff` or `git checkout -- .`.

lathe's and Claude Code's settings (`.lathe/`, `.claude/`, `.mcp.json`, lathe's config folder)
hold the deny rules and hooks of every later session, so such a writer is treated as a write to
a protected path (never auto-allowed, any mode) when it may write one of them:
- `git apply` / `git am`: the patch text names one (read from the patch files; a patch from
  standard input, one that cannot be read or one the same command writes counts as naming one),
  or `--directory`/`--unsafe-paths` move the paths it writes;
- `git checkout-index --prefix=...`: the prefix is anywhere, the check names no file;
- the others (`checkout`, `restore`, `reset --hard`, `stash`, `merge`, `rebase`, `cherry-pick`,
  `revert`, `switch`, `read-tree -u`, `bisect`): the index or any revision git can reach tracks
  one (asked of git itself, with no config that runs a program); `pull` brings in revisions no
  check has seen, and so does a writer whose git answer fails.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable

_PATCHERS = frozenset({"apply", "am"})
_FROM_REVISIONS = frozenset({"checkout", "restore", "stash", "merge", "rebase", "cherry-pick",
                             "revert", "switch", "read-tree", "bisect", "reset"})  # fmt: skip
_SETTINGS_NAMES = (".lathe", ".claude", ".mcp.json")
# Pathspecs of the settings at any depth, as git matches them (case-blind, as macOS does).
_SETTINGS_SPECS = (":(glob,icase)**/.lathe/**", ":(glob,icase)**/.claude/**",
                   ":(glob,icase)**/.mcp.json")  # fmt: skip
_HEX = re.compile(r"^[0-9a-fA-F]{7,64}$")


_GLOBAL_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                           "--config-env", "--super-prefix", "--list-cmds"})  # fmt: skip
_MOVES = ("-C", "--git-dir", "--work-tree")


def _subcommand(words: tuple[str, ...]) -> tuple[str, tuple[str, ...], bool]:
    """(subcommand, its arguments, whether a global option moves the repository or work tree)."""
    i, moved = 1, False
    while i < len(words) and words[i].startswith("-"):
        word = words[i]
        moved = moved or word.startswith(_MOVES)
        i += 2 if word in _GLOBAL_VALUE else 1
    return (words[i], words[i + 1 :], moved) if i < len(words) else ("", (), moved)


def _config_dir() -> str:
    value = os.environ.get("LATHE_CONFIG_DIR")
    return os.path.abspath(value) if value else ""


def _names_settings(text: str) -> bool:
    low = text.lower()
    config = _config_dir()
    return any(n in low for n in _SETTINGS_NAMES) or bool(config and config.lower() in low)


def git_write_reason(
    words: tuple[str, ...], cwds: list[str], written: Callable[[], frozenset[str]]
) -> str:
    """Why this git call, run in any of `cwds`, may write lathe's or Claude Code's settings from
    a patch or a revision, or "". `written` gives the files the whole command writes."""
    if not words or words[0] != "git":
        return ""
    for cwd in cwds:
        why = _reason(words, cwd, written)
        if why:
            return why
    return ""


def _reason(words: tuple[str, ...], cwd: str, written: Callable[[], frozenset[str]]) -> str:
    sub, args, moved = _subcommand(words)
    writes = sub in _PATCHERS or sub in _FROM_REVISIONS or sub in ("checkout-index", "pull")
    if moved and writes:
        return f"`git {sub}` writes in a repository or work tree an option names"
    if sub in _PATCHERS:
        return _patch_reason(sub, args, cwd, written)
    if sub == "checkout-index":
        if any(a.startswith("--prefix") for a in args):
            return "`git checkout-index --prefix` writes below a folder no check follows"
        return _tracked_reason(cwd, args)
    if sub == "pull":
        return "`git pull` writes revisions no check has seen, which may hold lathe's settings"
    if sub not in _FROM_REVISIONS:
        return ""
    options = [a for a in args if a.startswith("-")]
    if sub == "reset" and not any(a in ("--hard", "--merge", "--keep") for a in options):
        return ""  # only the index moves
    if sub == "stash" and args[:1] and args[0] in ("list", "show"):
        return ""
    if sub == "read-tree" and not any(a == "-u" or a.startswith("--reset") for a in options):
        return ""
    if sub == "bisect" and args[:1] and args[0] in ("log", "visualize", "view", "terms"):
        return ""
    return _tracked_reason(cwd, args)


def _patch_reason(
    sub: str, args: tuple[str, ...], cwd: str, written: Callable[[], frozenset[str]]
) -> str:
    if any(a.startswith(("--unsafe-paths", "--directory")) for a in args):
        return f"`git {sub}` writes the patch's paths below a folder it is given"
    files = [a for a in args if not a.startswith("-")]
    if "--" in args:
        files = list(args[args.index("--") + 1 :])
    if not files or "-" in files:
        return f"`git {sub}` applies a patch from its input, whose paths no check sees"
    made = written()
    for name in files:
        path = os.path.realpath(os.path.join(cwd, name))
        if path in made:
            return f"`git {sub}` applies {name}, which the same command writes"
        try:
            with open(path, "rb") as fh:
                text = fh.read(8 * 1024 * 1024 + 1).decode("utf-8", "replace")
        except OSError:
            return f"`git {sub}` applies {name}, which cannot be read to see its paths"
        if len(text) > 8 * 1024 * 1024 or _names_settings(text):
            return f"the patch {name} writes lathe's or Claude Code's settings"
    return ""


def _git(cwd: str, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_OPTIONAL_LOCKS="0",
               GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", PAGER="cat")  # fmt: skip
    cmd = ["git", "--no-pager", "-c", "core.fsmonitor=false", "-c", "log.showSignature=false",
           *args]  # fmt: skip
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=3,
                               stdin=subprocess.DEVNULL)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None


def _tracked_reason(cwd: str, args: tuple[str, ...]) -> str:
    """Does the index or a revision git can reach (every ref, the reflogs, and the object ids
    the command names) track one of the settings? Asked of git: trees are compressed objects."""
    if any("FETCH_HEAD" in a for a in args):
        return "it writes FETCH_HEAD, a revision no check has seen"
    revs = [a for a in args if _HEX.match(a)]
    index = _git(cwd, "ls-files", "-z", "--", *_SETTINGS_SPECS)
    history = _git(cwd, "log", "--all", "--reflog", *revs, "--format=", "--name-only",
                   "--no-textconv", "-z", "--", *_SETTINGS_SPECS)  # fmt: skip
    for proc in (index, history):
        if proc is None or proc.returncode != 0:
            return "git could not say whether the revisions it writes hold lathe's settings"
        if proc.stdout.strip(b"\0\n"):
            name = proc.stdout.split(b"\0")[0].decode("utf-8", "replace").strip()
            return f"the repository tracks {name}, lathe's or Claude Code's settings"
    return ""
