"""The App reloading real settings files while it runs: rules reach the session's decider (its
mode kept), theme and keymap apply, and the conversation says what changed or what is broken."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from app.compose_tui import FileSettingsWatch
from app.config.loader import load_settings
from app.permissions import RuleDecider, context_from_settings
from app.permissions.reload import SettingsReloader
from app.tui.app import LatheApp
from app.tui.ports import EventSink, SessionPort
from tests.tui.conftest import SIZE, ScriptedSession, make_config
from widgets.message_blocks import NoticeBlock

pytestmark = pytest.mark.timeout(40)


def notices(app: LatheApp) -> list[str]:
    return [n.text for n in app.main.conversation.query(NoticeBlock)]


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


def app_with_watch(project: Path) -> tuple[LatheApp, RuleDecider]:
    # As app.compose builds it: from the files, then the user switched the mode.
    loaded = context_from_settings(load_settings(project))
    decider = RuleDecider(replace(loaded, mode="acceptEdits"))
    config = make_config(settings_watch=FileSettingsWatch(SettingsReloader(project)))

    async def factory(sink: EventSink) -> SessionPort:
        return ScriptedSession(app, rules=decider)

    app = LatheApp(config, session_factory=factory)
    return app, decider


async def test_rules_theme_and_keymap_apply_live(project: Path) -> None:
    (project / ".git").mkdir()
    settings = project / ".lathe" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text('[permissions]\nallow = ["Read"]\n')
    app, decider = app_with_watch(project)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.session is not None)
        watch = app.config.settings_watch
        assert isinstance(watch, FileSettingsWatch)
        reloader = watch.reloader
        await until(lambda: reloader.state is not None)
        await asyncio.sleep(0.3)  # the watcher is armed

        settings.write_text(
            '[permissions]\nallow = ["Read"]\ndeny = ["Bash(rm:*)"]\n'
            "additional_directories = 3\n"  # a broken value: the file fails closed
        )
        await until(lambda: any("Settings problem" in n for n in notices(app)))
        problem = next(n for n in notices(app) if "Settings problem" in n)
        assert f"{settings}:4: permissions.additional_directories" in problem
        assert any(f"Settings broken in {settings}" in n for n in notices(app))
        # Its deny applies at once, its allow is off until the file is fixed.
        assert decider.context.allow == ()
        assert {r.display() for r in decider.context.deny} == {"Bash(rm:*)"}

        settings.write_text(
            'theme = "lathe-light"\n[permissions]\nallow = ["Read"]\ndeny = ["Bash(rm:*)"]\n'
            '[keymap]\ncycle_mode = "ctrl+t"\n'
        )
        await until(lambda: app.theme == "lathe-light")
        await until(lambda: any("Keymap reloaded" in n for n in notices(app)))
        assert {r.display() for r in decider.context.deny} == {"Bash(rm:*)"}
        assert decider.context.mode == "acceptEdits"
        assert "Permission rules reloaded: +allow Read" in notices(app)
        assert "Theme from settings: lathe-light" in notices(app)

        # The remapped key now cycles the mode; the old one does not.
        mode = app.permission_mode
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.main.status_bar.info.permission_mode != mode
        app.stop_settings_watch()
