"""tui-r4 F6 (its second half): a background Bash command's end is shown in plain words, as
Claude Code shows it ('Background command "Background job" completed (exit code 0)'). The words
are the background shell's (tools/process/background.py), the session turns them into a notice;
the UI names no tool. Real Session, a real subprocess, the HTTP fake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.engine.api import EngineEvent, TurnEnded
from app.model.scenario import Block, Turn, text_turn
from tests.tui.conftest import SIZE
from tests.tui.test_dialog_on_real_session import real_app, wait_until
from widgets.message_blocks import NoticeBlock


def _background(command: str, description: str) -> Turn:
    call = {"command": command, "description": description, "run_in_background": True}
    return Turn(blocks=(Block("tool_use", (json.dumps(call),), name="Bash", id="toolu_bg1"),))


def _notices(app: Any) -> list[str]:
    return [b.text for b in app.main.conversation.query(NoticeBlock)]


async def test_a_background_command_says_when_it_completed(fake_api: Any, project: Path) -> None:
    fake_api.load([_background("echo bg-output-here", "Background job"), text_turn("Started.")])
    seen: list[EngineEvent] = []
    app = real_app(fake_api, project, seen)
    done = 'Background command "Background job" completed (exit code 0)'
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("todo")
        await wait_until(pilot, lambda: any(isinstance(e, TurnEnded) for e in seen))
        await wait_until(pilot, lambda: done in _notices(app))
        assert not any("BashOutput" in n for n in _notices(app))


async def test_a_failed_background_command_says_its_exit_code(fake_api: Any, project: Path) -> None:
    fake_api.load([_background("ls no-such-dir-f6", ""), text_turn("Started.")])
    seen: list[EngineEvent] = []
    app = real_app(fake_api, project, seen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("todo")
        await wait_until(
            pilot,
            lambda: 'Background command "ls no-such-dir-f6" failed (exit code 2)' in _notices(app),
        )
