"""What `lathe -p hi` has imported when its first API request leaves (issue 18).

The real `python -m app -p hi` runs against the HTTP fake of the API; a sitecustomize hook
records `sys.modules` at the first `connect()` of a socket (the API request's) and lets the run
go on to its end. Each module named here was once on that path and is not needed for it: a change that
brings one back fails here instead of slowing every start silently. Structural, never timed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.model.scenario import text_turn
from tests.fakeapi.server import FakeAPI

ROOT = Path(__file__).resolve().parents[2]

# Installed through a sitecustomize module on PYTHONPATH, so the real `python -m app` runs as a
# user starts it: at the first socket connect (the API request's) the loaded modules go to the
# file named by LATHE_TEST_MODULES_OUT.
SITECUSTOMIZE = r"""
import json, os, socket, sys
_connect = socket.socket.connect

def _first_connect(self, address):
    socket.socket.connect = _connect
    with open(os.environ["LATHE_TEST_MODULES_OUT"], "w") as f:
        json.dump(sorted(sys.modules), f)
    return _connect(self, address)

socket.socket.connect = _first_connect
"""


def recording_env(tmp_path: Path, record: Path, base: dict[str, str]) -> dict[str, str]:
    """`base` with the connect hook installed for `python -m app`; `record` gets the modules."""
    hook = tmp_path / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {**base, "PYTHONPATH": f"{hook}{os.pathsep}{ROOT}"}
    env["LATHE_TEST_MODULES_OUT"] = str(record)
    env.pop("LATHE_EAGER_SDK", None)
    return env


# (module, why it is not needed before the first request)
NOT_BEFORE_FIRST_REQUEST = (
    ("mcp", "the MCP SDK: only a session with servers needs it (app/mcp/info.py)"),
    ("mcp_types", "the MCP SDK's types (app/mcp/bridge.py)"),
    ("app.mcp.manager", "MCP connections: imported where a server is configured"),
    ("textual", "the TUI"),
    ("httpx", "the older HTTP library: HTTP hooks and WebFetch import it where they run"),
    ("anthropic.types.beta", "the SDK's beta types: only an error response loads them"),
    ("app.permissions.bash", "the shell analysis: loads with the first command judged"),
    ("app.permissions.bash_bypass", "the shell analysis' bypass checks"),
    ("pathspec", "gitignore matching: the first path rule or ignore file judged loads it"),
)


def _modules_at_first_request(tmp_path: Path, fake: FakeAPI, *args: str) -> set[str]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    record = tmp_path / "modules.json"
    base = {**os.environ, "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake.url}
    proc = subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=repo,
        env=recording_env(tmp_path, record, base),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
    assert len(fake.requests) == 1  # the hook saw the API request's connection, not another
    return set(json.loads(record.read_text()))


def _loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


def test_print_mode_loads_only_what_its_first_request_needs(
    tmp_path: Path, fake_api: FakeAPI
) -> None:
    fake_api.load([text_turn("ok")])
    modules = _modules_at_first_request(tmp_path, fake_api, "-p", "hi")
    assert "anthropic" in modules and "app.compose" in modules  # the hook ran at the request
    loaded = [f"{name} ({why})" for name, why in NOT_BEFORE_FIRST_REQUEST if _loaded(modules, name)]
    assert not loaded, "imported before -p's first request: " + "; ".join(loaded)


@pytest.mark.parametrize("name", ["app.mcp.info", "app.engine.api", "app.engine.controls"])
def test_the_engine_port_names_mcp_servers_without_the_mcp_sdk(name: str) -> None:
    code = f"import sys, {name}\nprint(any(m == 'mcp' or m.startswith('mcp') for m in sys.modules))"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_the_tuis_first_frame_needs_neither_the_composition_root_nor_the_reloader() -> None:
    # What make_config and the App's module import before the first paint (no prompt given).
    code = (
        "import sys\n"
        "from app.cli import CliOptions\n"
        "from app.compose_tui import make_config\n"
        "import app.tui.app\n"
        "make_config(CliOptions())\n"
        "print([m for m in ('app.compose', 'app.permissions.reload') if m in sys.modules])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
