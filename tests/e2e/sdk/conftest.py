"""The real `claude-agent-sdk` driving the real lathe over stdio, against the HTTP fake of the API.

`cli_path` is the only thing the tests change in the SDK's options: a small launcher script that
runs `python -m app` from this checkout (the SDK needs an executable file to spawn).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi.server import FakeAPI

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def lathe_cli(tmp_path: Path) -> str:
    script = tmp_path / "lathe-cli"
    script.write_text(
        f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m app "$@"\n', encoding="utf-8"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


@pytest.fixture
def sdk_env(fake_api: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The environment the SDK's child inherits: the fake's address and a key."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    monkeypatch.setenv("ANTHROPIC_MODEL", "claude-sonnet-4-5")
    monkeypatch.setenv("LATHE_RETRY_BASE_MS", "5")
    yield dict(os.environ)


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    return project


def options(cli: str, cwd: Path, **kw: Any) -> Any:
    from claude_agent_sdk import ClaudeAgentOptions

    return ClaudeAgentOptions(cli_path=cli, cwd=str(cwd), **kw)
