"""lathe installed the way users install Python command-line tools: a wheel built with `uv build`,
installed with `uv tool install` into private folders, gives a `lathe` that runs with no `uv run`
and no source tree on the path."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from app import __version__
from app.model.scenario import text_turn
from tests.fakeapi.server import FakeAPI

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("uv") is None, reason="needs uv on PATH"),
]


def _uv(*args: str, env: dict[str, str]) -> None:
    proc = subprocess.run(["uv", *args], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tool")
    env = {
        **os.environ,
        "UV_TOOL_DIR": str(root / "tools"),
        "UV_TOOL_BIN_DIR": str(root / "bin"),
        # Offline when the cache has the dependencies (it does once `uv sync` ran); online else.
        "UV_PYTHON_DOWNLOADS": "never",
    }
    env.pop("VIRTUAL_ENV", None)
    _uv("build", "--wheel", "--out-dir", str(root / "dist"), str(ROOT), env=env)
    (wheel,) = (root / "dist").glob("lathe-*.whl")
    _uv("tool", "install", str(wheel), env=env)
    exe = root / "bin" / "lathe"
    assert exe.exists()
    return exe


def _clean_env(tmp: Path, **extra: str) -> dict[str, str]:
    """No PYTHONPATH, no project venv: only what the tool install brought."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = "/usr/bin:/bin"
    env.update(
        HOME=str(tmp),
        LATHE_STATE_DIR=str(tmp / "state"),
        LATHE_CONFIG_DIR=str(tmp / "config"),
        LATHE_POLICY_FILE=str(tmp / "no-policy.toml"),
    )
    env.update(extra)
    return env


def test_installed_lathe_runs_without_the_source_tree(installed: Path, tmp_path: Path) -> None:
    env = _clean_env(tmp_path)
    version = subprocess.run(
        [str(installed), "--version"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert version.returncode == 0 and version.stdout.strip() == f"lathe {__version__}"
    demo = subprocess.run(
        [str(installed), "-p", "--model", "demo", "hello"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert demo.returncode == 0, demo.stderr
    assert "offline demo" in demo.stdout


def test_installed_lathe_talks_to_the_api(installed: Path, tmp_path: Path) -> None:
    with FakeAPI([text_turn("installed and answering")]) as fake:
        env = _clean_env(tmp_path, ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=fake.url)
        proc = subprocess.run(
            [str(installed), "-p", "hi"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "installed and answering"
        assert len(fake.bodies()) == 1
