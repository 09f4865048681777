from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fake_tools import (
    CancelSleep,
    Exploding,
    Picky,
    Recorder,
    SafeShellLike,
    SafeSleep,
    ShellLike,
    UnsafeSleep,
)
from tools.base import Tool, ToolContext


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def fake_tools(recorder: Recorder) -> list[Tool]:  # type: ignore[type-arg]
    return [
        SafeSleep(recorder),
        UnsafeSleep(recorder),
        ShellLike(recorder),
        SafeShellLike(recorder),
        CancelSleep(recorder),
        Picky(recorder),
        Exploding(recorder),
    ]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(
        cwd=str(tmp_path),
        project_dir=str(tmp_path),
        working_dirs=(str(tmp_path),),
        session_dir=str(tmp_path / "session"),
    )
