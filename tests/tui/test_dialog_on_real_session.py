"""The permission dialog on a real Session (the HTTP fake of the API behind it): the question
arrives through the front-end API with its preview of the real file, Ctrl+C answers it through
the session (the turn stops, the file is untouched, the conversation stays valid), and the
dialog's key guard is half a second by default."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from app.cli import CliOptions
from app.compose import build_session
from app.engine.api import EngineEvent, PermissionRequested, ToolCallUpdated
from app.execution.texts import INTERRUPTED_FOR_TOOL_USE
from app.model.scenario import text_turn, tool_use_block, turn_of
from app.tui.app import LatheApp
from app.tui.ports import TuiConfig
from app.tui.screens.permission import PermissionScreen
from tests.support.engine import fake_env
from tests.tui import scenes
from tests.tui.conftest import SIZE, FixedClock, make_app
from widgets.message_blocks import NoticeBlock


def real_app(fake: Any, repo: Path, seen: list[EngineEvent]) -> LatheApp:
    (repo / ".git").mkdir(exist_ok=True)
    app = make_app()

    async def factory(sink: Any) -> Any:
        def both(event: EngineEvent) -> None:
            seen.append(event)
            sink(event)

        # The TUI's own wiring: the engine's prompter, questions as PermissionRequested events.
        setup = build_session(
            CliOptions(), interactive=True, cwd=repo, env=fake_env(fake), sink=both, trusted=True
        )
        return setup.session

    app.session_factory = factory
    return app


async def wait_until(pilot: Any, check: Any, timeout: float = 30) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, "timed out"
        await pilot.pause(0.05)


async def test_ctrl_c_answers_the_open_dialog_through_the_real_session(fake_api, project) -> None:
    target = project / "notes.txt"
    target.write_text("one\ntwo\n")
    edit = {"file_path": str(target), "old_string": "two", "new_string": "TWO"}
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": str(target)}, "r1")]),
            turn_of([tool_use_block("Edit", edit, "e1")]),
            text_turn("never asked for"),
        ]
    )
    seen: list[EngineEvent] = []
    app = real_app(fake_api, project, seen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("change two")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.pause()  # drawn: keys before that never answer
        [asked] = [e.question for e in seen if isinstance(e, PermissionRequested)]
        # The preview is the diff against the file as it is on disk.
        assert asked.preview is not None and asked.preview.kind == "diff"
        assert "-two" in asked.preview.text and "+TWO" in asked.preview.text
        waiting = [e.view for e in seen if isinstance(e, ToolCallUpdated)]
        assert waiting[-1].status == "awaiting_approval" and waiting[-1].tool_use_id == "e1"
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.turn_running)
        await pilot.pause()
        assert not isinstance(app.screen, PermissionScreen)
        assert asked.answered and asked.resolver.value is not None
        assert asked.resolver.value.reason is not None
        assert asked.resolver.value.reason.kind == "abort"
        # The session stopped the turn: the model was not asked again, the file is as it was,
        # and the conversation ends with the interrupted call's result and the interrupt text.
        assert len(fake_api.requests) == 2 and target.read_text() == "one\ntwo\n"
        session: Any = app.session
        last = session.messages[-1]["content"]
        assert last[0]["tool_use_id"] == "e1" and last[0]["is_error"]
        assert last[-1] == {"type": "text", "text": INTERRUPTED_FOR_TOOL_USE}
        finished = [e.view for e in seen if isinstance(e, ToolCallUpdated)][-1]
        assert finished.tool_use_id == "e1" and finished.status in ("interrupted", "denied")
        texts = [b.text for b in app.main.conversation.query(NoticeBlock)]
        assert any(t.startswith("Interrupted") for t in texts)


async def test_the_key_guard_is_half_a_second_by_default() -> None:
    assert TuiConfig().dialog_key_guard_s == 0.5
    clock = FixedClock()
    # The harness's settings but the guard: its default, as lathe runs.
    app = LatheApp(TuiConfig(clock=clock, cursor_blink=False, progress_tick_s=None))
    assert app.config.dialog_key_guard_s == 0.5
    question = scenes.bash_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(question)
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen)
        clock.now += 0.49
        await pilot.press("1")
        await pilot.pause()
        assert not question.answered  # still inside the guard: typing meant for the prompt
        clock.now += 0.02
        await pilot.press("1")
        await pilot.pause()
        assert question.answered and question.resolver.value is not None
        assert question.resolver.value.behavior == "allow"
