"""Where lathe's files live: config, state, policy, and the project a session starts in."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DEFAULT_POLICY_FILE = "/etc/lathe/settings.toml"


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    home = _env(env).get("HOME")
    return Path(home) if home else Path.home()


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$LATHE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/lathe`, else `~/.config/lathe`."""
    e = _env(env)
    if e.get("LATHE_CONFIG_DIR"):
        return Path(e["LATHE_CONFIG_DIR"]).expanduser()
    if e.get("XDG_CONFIG_HOME"):
        return Path(e["XDG_CONFIG_HOME"]).expanduser() / "lathe"
    return home_dir(env) / ".config" / "lathe"


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$LATHE_STATE_DIR`, else `$XDG_STATE_HOME/lathe`, else `~/.local/state/lathe`."""
    e = _env(env)
    if e.get("LATHE_STATE_DIR"):
        return Path(e["LATHE_STATE_DIR"]).expanduser()
    if e.get("XDG_STATE_HOME"):
        return Path(e["XDG_STATE_HOME"]).expanduser() / "lathe"
    return home_dir(env) / ".local" / "state" / "lathe"


def policy_file(env: Mapping[str, str] | None = None) -> Path:
    e = _env(env)
    return Path(e.get("LATHE_POLICY_FILE") or DEFAULT_POLICY_FILE).expanduser()


def project_dir(start: str | Path) -> Path:
    """The git root of `start` (a folder holding `.git`, dir or file), else `start` itself."""
    start_path = Path(start).expanduser().resolve()
    for folder in (start_path, *start_path.parents):
        if (folder / ".git").exists():
            return folder
    return start_path
