"""The TUI's session starts in the folder make_app was given, the one its settings came from.

make_app(opts, cwd) loaded the settings from `cwd` but built the session from os.getcwd() (round 2
review, item 8): a caller starting lathe on another folder got that folder's settings with the
process's folder as the session's working directory and project.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import CliOptions
from app.compose_tui import make_app


async def test_the_session_is_built_in_make_apps_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LATHE_CONFIG_DIR", str(home / ".lathe"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(elsewhere)
    app = make_app(CliOptions(), cwd=project)
    assert app.session_factory is not None
    session = await app.session_factory(lambda event: None)
    try:
        status = session.status()
        assert status.cwd == str(project.resolve())
        assert status.project_dir == str(project.resolve())
    finally:
        await session.close()
