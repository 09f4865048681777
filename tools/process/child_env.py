"""The environment lathe hands to the programs it starts: Bash commands, hooks, MCP stdio servers.

Credentials lathe holds for talking to the model never reach them, since a command the model runs
could print or send them (`printenv ANTHROPIC_API_KEY`). Removed: `ANTHROPIC_API_KEY`,
`ANTHROPIC_AUTH_TOKEN`, `CLAUDE_CODE_OAUTH_TOKEN`, `ANTHROPIC_CUSTOM_HEADERS` (it carries auth
headers), and any `ANTHROPIC_*`, `CLAUDE_*` or `LATHE_*` variable whose name says key, token,
secret, password, credential, auth or cookie. `ANTHROPIC_BASE_URL` stays: it is a location, and a
script the user passes a key to should reach the same endpoint or proxy; it is removed only when
it carries a user name or password (`https://user:pass@proxy`), which makes it a credential.

A setting passes a variable on by name (`passthrough_env = ["ANTHROPIC_API_KEY"]`); an MCP
server's own `env` table is explicit too and is applied after this filter, and so is the settings'
`env` map (Claude Code's `env` key): a variable the user set there on purpose reaches every child.
`CLAUDECODE=1` is set in every child, as Claude Code does, so scripts can tell they run under an
agent.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

ALWAYS_SECRET = frozenset(
    {
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_CUSTOM_HEADERS",
        "CLAUDE_CODE_OAUTH_TOKEN",
    }
)
_OWN_PREFIXES = ("ANTHROPIC_", "CLAUDE_", "LATHE_")
_SECRET_WORDS = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE", re.IGNORECASE)
_URL_NAMES = frozenset({"ANTHROPIC_BASE_URL"})

# Names a setting passes on (set once per session by app.engine.setup; lathe runs one session's
# settings per process).
_passthrough: frozenset[str] = frozenset()
# The settings' `env` map, applied after the filter (set once per session by app.engine.setup).
_session_env: dict[str, str] = {}
AGENT_MARKERS = {"CLAUDECODE": "1"}


def set_passthrough(names: Iterable[str]) -> None:
    global _passthrough
    _passthrough = frozenset(names)


def passthrough() -> frozenset[str]:
    return _passthrough


def set_session_env(values: Mapping[str, str]) -> None:
    global _session_env
    _session_env = {str(k): str(v) for k, v in values.items()}


# Files SessionStart hooks wrote `export X=Y` lines to (their CLAUDE_ENV_FILE); each Bash command
# sources them first, so what a hook set up (a venv, nvm, PATH) holds for every later command.
_env_files: list[str] = []


def add_env_file(path: str) -> None:
    if path not in _env_files:
        _env_files.append(path)


def clear_env_files() -> None:
    _env_files.clear()


def env_files() -> tuple[str, ...]:
    return tuple(_env_files)


def is_secret(name: str, value: str = "") -> bool:
    upper = name.upper()
    if upper in ALWAYS_SECRET:
        return True
    if upper in _URL_NAMES:
        return _has_userinfo(value)
    return upper.startswith(_OWN_PREFIXES) and bool(_SECRET_WORDS.search(upper))


def _has_userinfo(value: str) -> bool:
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return True  # cannot tell: keep it away
    return "@" in parts.netloc


def child_env(
    base: Mapping[str, str] | None = None, passthrough_names: Iterable[str] | None = None
) -> dict[str, str]:
    """`base` (default: this process's environment) without the credentials, except those
    passed on by name, then the settings' `env` map and the agent markers."""
    env = os.environ if base is None else base
    keep = _passthrough if passthrough_names is None else frozenset(passthrough_names)
    out = {k: v for k, v in env.items() if k in keep or not is_secret(k, v)}
    out.update(_session_env)
    out.update(AGENT_MARKERS)
    return out


def protect_own_process() -> bool:
    """Keep the programs lathe starts from reading its credentials out of lathe itself: they run
    as the same user, so `cat /proc/$PPID/environ` or a debugger attached to lathe would find
    the key this module keeps out of their environment. A non-dumpable process's /proc files
    and memory are closed to other processes of the user (and core dumps are off). Linux only;
    children start dumpable again (exec resets it). Returns whether it took effect."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


_PR_SET_DUMPABLE = 4
