"""A broken settings file blocks the TUI on a dialog before any session exists: reload after a
fix, exit (code 2), or continue with the broken file's deny and ask rules only. Real files, the
real make_config and, for "continue", the real session build."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from app import compose_tui as launch
from app.cli import parse_args
from app.tui.app import LatheApp
from app.tui.ports import EventSink, SessionPort
from app.tui.screens import typed_ahead
from app.tui.screens.settings_error import SettingsErrorScreen
from tests.tui.conftest import SIZE, ScriptedSession
from widgets.message_blocks import NoticeBlock

pytestmark = pytest.mark.timeout(60)


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


def _broken_project(project: Path) -> Path:
    (project / ".git").mkdir()
    path = project / ".lathe" / "settings.toml"
    path.parent.mkdir()
    path.write_text('[permissions]\ndeny = ["Bash"]\nallow = ["Read", "Write"\n')
    return path


def _app(project: Path, factory=None) -> tuple[LatheApp, list[str]]:
    config = launch.make_config(parse_args([]), cwd=project)
    # No key guard here (tests/tui/test_key_guard.py has it): these keys are the user's answers.
    config = replace(
        config,
        ask_trust_for=None,
        settings_watch=None,
        initial_prompt=None,
        dialog_key_guard_s=0.0,
    )
    built: list[str] = []

    async def scripted(sink: EventSink) -> SessionPort:
        built.append("session")
        return ScriptedSession(app)

    app = LatheApp(config, session_factory=factory or scripted)
    return app, built


def _dialog_text(app: LatheApp) -> str:
    screen = app.screen
    assert isinstance(screen, SettingsErrorScreen)
    return "\n".join(str(s.render()) for s in screen.query("Static"))


async def test_dialog_names_file_line_and_blocks_until_reloaded_fixed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A `1` right after typed letters is part of the sentence (tui-r4 F4): a short gap here.
    monkeypatch.setattr(typed_ahead, "TYPING_GAP_S", 0.05)
    path = _broken_project(project)
    app, built = _app(project)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = _dialog_text(app)
        assert f"{path}:4:1: invalid TOML" in text
        assert "1 deny and 0 ask rules kept" in text
        await asyncio.sleep(0.2)
        assert built == []  # no session while the dialog is up
        # Typing at it does nothing; reloading a still-broken file keeps it up.
        await pilot.press("a", "y", "enter")
        await asyncio.sleep(0.1)  # a pause after the typing: the `1` is the reload
        await pilot.press("1")
        await pilot.pause()
        assert isinstance(app.screen, SettingsErrorScreen) and built == []
        assert "Still broken" in _dialog_text(app)
        path.write_text('[permissions]\ndeny = ["Bash"]\nallow = ["Read"]\n')
        await pilot.press("1")
        await until(lambda: built == ["session"])
        assert not isinstance(app.screen, SettingsErrorScreen)


async def test_exit_leaves_with_code_2(project: Path) -> None:
    _broken_project(project)
    app, built = _app(project)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("2")
        await pilot.pause()
    assert app.return_code == 2 and built == []


async def test_continue_keeps_the_deny_rules_and_no_allow_rule(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _broken_project(project)
    monkeypatch.chdir(project)
    opts = parse_args([])

    async def real(sink: EventSink) -> SessionPort:
        return await launch.build_session(opts, sink)

    app, _ = _app(project, real)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SettingsErrorScreen)
        await pilot.press("3")
        await until(lambda: app.session is not None, 30)
        decider = app.session.parts.rules  # type: ignore[attr-defined]
        assert [r.text for r in decider.context.deny] == ["Bash"]
        assert decider.context.allow == ()
        await until(
            lambda: any(
                "deny and ask rules apply" in n.text
                for n in app.main.conversation.query(NoticeBlock)
            )
        )
