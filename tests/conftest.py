"""Test-wide isolation: no host or user configuration may leak into a test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.model import lazy_sdk

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
