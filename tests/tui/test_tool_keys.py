"""The keys this part adds, on the real session (HTTP fake behind it) where the engine matters:
Esc/3 deny ends the turn (the other calls are not run, the model is not asked again, the prompt
says what to do next), Tab + feedback goes on, `2` allows an edit's file for the session, `4`
then Enter accepts all edits, `5` then Enter saves the file's rule; on a tool block, Enter expands
(long lines wrap) and `o` opens the whole output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from textual.widgets import Static

from app.engine.api import EngineEvent
from app.execution.texts import INTERRUPTED_FOR_TOOL_USE, REJECT_MESSAGE
from app.model.scenario import text_turn, tool_use_block, turn_of
from app.tui.event_router import DENIED_TEXT
from app.tui.screens.permission import PermissionScreen
from tests.tui import scenes, tool_scenes
from tests.tui.conftest import make_app
from tests.tui.test_dialog_on_real_session import real_app, wait_until
from widgets.message_blocks import NoticeBlock
from widgets.output_view import OutputView
from widgets.tool_block import ToolBlock, render_tool

SIZE = (120, 40)


def _touch_batch(repo: Path) -> list[Any]:
    return [
        turn_of(
            [
                tool_use_block("Bash", {"command": "touch x", "description": "Make x"}, "b1"),
                tool_use_block("Bash", {"command": "touch y"}, "b2"),
            ]
        ),
        text_turn("asked again"),
        text_turn("after the user wrote"),
    ]


def _blocks(app: Any) -> dict[str, ToolBlock]:
    return {b.state.tool_use_id: b for b in app.main.conversation.query(ToolBlock)}


async def test_escape_denies_and_ends_the_turn(fake_api: Any, project: Path) -> None:
    fake_api.load(_touch_batch(project))
    seen: list[EngineEvent] = []
    app = real_app(fake_api, project, seen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("make two files")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.pause()  # drawn: keys before that never answer
        # Waiting for the answer is not running: the block and the panel say so.
        assert _blocks(app)["b1"].state.status == "awaiting"
        assert "1 awaiting approval" in app.main.progress.counts()
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.turn_running)
        await pilot.pause()
        assert not isinstance(app.screen, PermissionScreen)  # the second Bash never asked
        assert len(fake_api.bodies()) == 1
        assert not (project / "x").exists() and not (project / "y").exists()
        blocks = _blocks(app)
        assert (blocks["b1"].state.status, blocks["b1"].state.outcome) == (
            "denied",
            "Denied by you",
        )
        assert blocks["b2"].state.outcome == "not run: you denied Bash(touch x)"
        shown = "\n".join(str(b.render()) for b in app.main.conversation.query(NoticeBlock))
        assert DENIED_TEXT in shown
        assert app.main.prompt.placeholder == DENIED_TEXT
        assert "tool_use_error" not in _screen_text(app)
        # The user's next words go to the model with the rejection texts before them.
        app.submit_prompt("do it differently")
        await wait_until(pilot, lambda: len(fake_api.bodies()) == 2 and not app.turn_running)
        last = fake_api.bodies()[-1]["messages"][-1]["content"]
        results = [b for b in last if b.get("type") == "tool_result"]
        assert [r["content"] for r in results] == [REJECT_MESSAGE, REJECT_MESSAGE]
        assert {"type": "text", "text": INTERRUPTED_FOR_TOOL_USE} in last
        assert app.main.prompt.placeholder != DENIED_TEXT


async def test_deny_with_feedback_goes_on(fake_api: Any, project: Path) -> None:
    fake_api.load(_touch_batch(project))
    app = real_app(fake_api, project, [])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("make two files")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.pause()  # drawn: keys before that never answer
        await pilot.press("tab", *"use mkdir", "enter")
        # The turn goes on: the second call asks.
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, PermissionScreen) and app.screen.prompt.tool_use_id == "b2"
            ),
        )
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.turn_running)
        assert (project / "y").exists() and not (project / "x").exists()
        sent = fake_api.bodies()[1]["messages"][-1]["content"]
        assert sent[0]["content"].endswith("the user said:\nuse mkdir")


def _edit_batch(target: Path, new: str) -> list[Any]:
    return [
        turn_of([tool_use_block("Read", {"file_path": str(target)}, "r1")]),
        turn_of(
            [
                tool_use_block(
                    "Edit", {"file_path": str(target), "old_string": "one", "new_string": new}, "e1"
                )
            ]
        ),
        text_turn("edited"),
    ]


async def test_edit_keys(fake_api: Any, project: Path) -> None:
    target = project / "notes.txt"
    target.write_text("one\n")
    fake_api.load(_edit_batch(target, "two"))
    app = real_app(fake_api, project, [])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("edit it")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.pause()  # drawn: keys before that never answer
        screen = app.screen
        assert isinstance(screen, PermissionScreen)
        await pilot.pause(0.6)  # past the dialog's key guard
        await pilot.press("4")  # accept all edits: selected, not answered
        assert screen.selected == "accept-edits" and not screen.prompt.answered
        await pilot.press("5")
        assert screen.selected == "allow-always"
        await pilot.pause(0.6)
        await pilot.press("enter")  # confirms the saved rule for this one file
        await wait_until(pilot, lambda: not app.turn_running)
        saved = (project / ".lathe" / "settings.local.toml").read_text()
        assert "Edit(./notes.txt)" in saved and "./**" not in saved
        assert target.read_text() == "two\n"


async def test_two_allows_the_file_for_the_session(fake_api: Any, project: Path) -> None:
    target = project / "notes.txt"
    target.write_text("one\n")
    fake_api.load(_edit_batch(target, "two"))
    app = real_app(fake_api, project, [])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("edit it")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.pause()  # drawn: keys before that never answer
        await pilot.pause(0.6)
        await pilot.press("2")  # at once: a grant for this file, this session only
        await wait_until(pilot, lambda: not app.turn_running)
        assert target.read_text() == "two\n"
        assert not (project / ".lathe" / "settings.local.toml").exists()


async def test_four_then_enter_switches_to_accept_edits(fake_api: Any, project: Path) -> None:
    target = project / "notes.txt"
    target.write_text("one\n")
    fake_api.load(_edit_batch(target, "two"))
    app = real_app(fake_api, project, [])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("edit it")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.pause()  # drawn: keys before that never answer
        await pilot.pause(0.6)
        await pilot.press("4")
        await pilot.pause(0.6)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.turn_running)
        assert app.session is not None and app.session.permission_mode == "acceptEdits"
        assert app.config.permission_mode == "acceptEdits"


async def test_enter_expands_and_o_opens_the_whole_output() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        scenes.feed(app, tool_scenes.long_output())
        await scenes.settle(app, pilot)
        block = app.main.conversation.query(ToolBlock).last()
        collapsed = _plain(render_tool(block.state, False), 80)
        assert "END-OF-IT" not in collapsed and "1995 earlier lines" in collapsed
        expanded = _plain(render_tool(block.state, True), 80)
        assert "END-OF-IT" in expanded  # the 4,000-character line, wrapped, read to its end
        block.focus()
        await pilot.press("enter")
        assert block.expanded
        await pilot.press("o")
        await pilot.pause()
        view = app.screen
        assert isinstance(view, OutputView)
        text = str(view.query_one("#output-text", Static).render())
        assert text.count("\n") == 1999 and "row 2000" in text and "END-OF-IT" in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, OutputView)


async def test_o_reads_a_spilled_output_from_its_file(tmp_path: Path) -> None:
    whole = tmp_path / "b1.txt"
    whole.write_text("".join(f"full {i}\n" for i in range(5000)))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        scenes.feed(app, tool_scenes.long_output(lines=10))
        await scenes.settle(app, pilot)
        block = app.main.conversation.query(ToolBlock).last()
        block.state.full_path = str(whole)
        block.focus()
        await pilot.press("o")
        view = app.screen
        assert isinstance(view, OutputView)
        await wait_until(pilot, lambda: "full 4999" in view.text, timeout=10)


def _plain(renderable: Any, width: int) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def _screen_text(app: Any) -> str:
    return "\n".join(_plain(b.render(), 120) for b in app.main.conversation.query(ToolBlock))
