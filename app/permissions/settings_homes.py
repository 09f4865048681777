"""Folders that hold the settings of every later session: a write that replaces one is protected.

paths.protected_reason names the settings files and folders themselves (`.lathe/`, `.claude/`,
`~/.config/lathe/settings.toml`). A command can take them away without naming them: it moves or
deletes a folder above them (`mv ~/.config/lathe ~/.config/lathe.old`, `mv ~/.config x`,
`mv $HOME $HOME.old`, `rm -r $LATHE_CONFIG_DIR`) or puts another folder in their place
(`mv prep ~/.config/lathe`, `ln -s prep ~/.config/lathe`, `cp -r prep/. ~/.config/lathe`). The
next `lathe` then starts without the user's deny rules, or with the model's settings
(`default_mode = "bypassPermissions"`, a SessionStart hook). So a write whose target is one of
these folders, or a folder above one that it may replace (moved or deleted, a link, or not yet
a folder), is a write to a protected path, as `mv ~/.claude x` already was.

The folders are where lathe reads settings and trust from (app/config/paths, loader.source_paths):
the user config folder, `~/.claude` (and `$CLAUDE_CONFIG_DIR`), the state folder (trust
records), git's XDG folder (`~/.config/git`: config, attributes), the policy file,
`$GIT_CONFIG_GLOBAL`, the home (its shell and git files, protected by name) and the project
(its `.lathe`, `.claude`, `.git`). Whatever is in the first four is read by later
sessions (agents, skills, hooks, trust records), so any write into them is protected too. Into
an existing real folder above them a plain write only adds a name (`cp f ~`, `touch ~/notes`),
which stays as it was.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from app.config.paths import config_dir, policy_file, state_dir

# Everything in these is read by later sessions (settings, agents, skills, hooks, trust records),
# so a write into them or anything in them is protected (`cp -r prep/. ~/.config/lathe`).
_WRITE_INTO = ("config", "claude", "state", "git")


def _forms(path: str | Path) -> set[str]:
    p = os.path.abspath(os.path.expanduser(str(path)))
    out = {p}
    try:
        out.add(os.path.realpath(p))
    except (OSError, ValueError):
        pass
    return out


_ENV = ("LATHE_CONFIG_DIR", "LATHE_STATE_DIR", "LATHE_POLICY_FILE", "XDG_CONFIG_HOME",
        "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM")  # fmt: skip
_TTL = 1.0
_memo: dict[tuple[str, ...], tuple[float, list[tuple[str, set[str]]]]] = {}


def settings_homes(home: str, project: str) -> list[tuple[str, set[str]]]:
    """(what, every form) of each folder holding settings or trust of later sessions; kept for
    a second (each write target of every decision asks, and the link targets cost a realpath)."""
    key = (home, project, os.environ.get("HOME", ""), *(os.environ.get(v, "") for v in _ENV))
    now = time.monotonic()
    hit = _memo.get(key)
    if hit is not None and now - hit[0] < _TTL:
        return hit[1]
    if len(_memo) > 64:
        _memo.clear()
    found = _settings_homes(home, project)
    _memo[key] = (now, found)
    return found


def _settings_homes(home: str, project: str) -> list[tuple[str, set[str]]]:
    env = dict(os.environ)
    if home:
        env["HOME"] = home
    out: list[tuple[str, set[str]]] = [
        ("config", _forms(config_dir(env))),
        ("state", _forms(state_dir(env))),
        ("policy", _forms(policy_file(env))),
    ]
    claude = [Path(home or "~") / ".claude"]
    if env.get("CLAUDE_CONFIG_DIR"):
        claude.append(Path(env["CLAUDE_CONFIG_DIR"]))
    out += [("claude", _forms(c)) for c in claude]
    # git's XDG folder: its config, attributes (filter and diff drivers run programs) and more.
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home or "~", ".config")
    out.append(("git", _forms(os.path.join(xdg, "git"))))
    for var in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        if env.get(var):
            out.append(("gitfile", _forms(env[var])))
    if home:
        out.append(("home", _forms(home)))
    if project:
        out.append(("project", _forms(project)))
    return out


_WHAT = {
    "config": "lathe's user settings folder",
    "state": "lathe's state folder (trust records)",
    "policy": "lathe's policy file",
    "git": "git's user configuration folder",
    "gitfile": "a git configuration file ($GIT_CONFIG_GLOBAL/$GIT_CONFIG_SYSTEM)",
    "claude": "Claude Code's user settings folder",
    "home": "the home folder (shell, git and settings files)",
    "project": "the project folder (its .lathe, .claude and .git)",
}


def replaces_settings(target: str, home: str, project: str, removes: bool) -> str:
    """Why writing `target` (absolute, normalised) may take away or replace a folder of later
    sessions' settings, or "". `removes`: the command moves or deletes its operands."""
    below = target.rstrip("/") + "/"
    for what, forms in settings_homes(home, project):
        for f in forms:
            if what in _WRITE_INTO and (target == f or target.startswith(f.rstrip("/") + "/")):
                return f"{target} is in {_WHAT[what]}, a protected folder"
            if (target == f or f.startswith(below)) and (
                removes or os.path.islink(target) or not os.path.isdir(target)
            ):
                return f"{target} would take away or replace {f}, {_WHAT[what]}"
    return ""
