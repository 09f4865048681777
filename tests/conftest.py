"""Test-wide isolation: no host or user configuration may leak into a test."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Bytecode for the tests and for every Python child they start (each `lathe` run, the SDK's and
# ACP's lathe, the TUI under tmux): with PYTHONDONTWRITEBYTECODE set, each of the suite's
# hundreds of lathe starts compiled the SDK and lathe from source again (twice the CPU of a
# cached start) and the lazy SDK re-parsed its package plans. The cache lives in its own tree
# (PYTHONPYCACHEPREFIX), so no __pycache__ appears beside the sources; .pyc files are checked
# against their source's mtime and size, so a stale one is never used.
_PYCACHE = Path(__file__).resolve().parents[1] / ".pytest_cache" / "pycache"
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
os.environ.setdefault("PYTHONPYCACHEPREFIX", str(_PYCACHE))
sys.dont_write_bytecode = False
sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]

from app.model import lazy_sdk  # noqa: E402

# The whole suite imports the SDK the way lathe does (app/model/lazy_sdk.py), before any test
# module imports it.
lazy_sdk.install()


@pytest.fixture(autouse=True)
def _isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("LATHE_CONFIG_DIR", str(home / ".config" / "lathe"))
    monkeypatch.setenv("LATHE_STATE_DIR", str(home / ".local" / "state" / "lathe"))
    monkeypatch.setenv("LATHE_POLICY_FILE", str(home / "no-policy.toml"))
    for var in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_MODEL",
        "LATHE_SIMPLE",
    ):
        monkeypatch.delenv(var, raising=False)
    yield


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


from tests.fakeapi.fixture import fake_api, sdk_client  # noqa: E402, F401
