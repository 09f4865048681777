"""The words of the TUI round 2 report's notes: a TodoWrite head says its count once, and the
busy line says "1 token" and fits a narrow terminal by dropping its least useful parts first
(never cut mid-word without an ellipsis)."""

from __future__ import annotations

from typing import Any

from app.engine.events import RequestStarted, StreamUsage, TurnStarted
from app.execution.events import ToolFinished, ToolQueued, ToolRunning, ToolStarted
from tests.tui import scenes
from tests.tui.conftest import SIZE, FixedClock, make_app, outcome
from tools.todo_write import RESULT_TEXT, TodoWriteTool
from widgets.busy_line import render_busy
from widgets.tool_block import ToolBlock, render_tool

TODOS = [
    {"content": "Read the loader", "status": "in_progress", "activeForm": "Reading the loader"},
    {"content": "Guard the lookup", "status": "pending", "activeForm": "Guarding the lookup"},
]


def _todo_write() -> list[Any]:
    tool = TodoWriteTool()
    tool_input = {"todos": TODOS}
    parsed = tool.parse_input(tool_input)
    data = {"message": RESULT_TEXT, "oldTodos": [], "newTodos": TODOS}
    return [
        TurnStarted("plan it"),
        ToolQueued("t1", "TodoWrite", tool_input, tool.summary(parsed), True, tool.label(parsed)),
        ToolStarted("t1", "TodoWrite", 990.0),
        ToolRunning("t1", "TodoWrite", 990.0),
        ToolFinished("t1", outcome("t1", "TodoWrite", RESULT_TEXT, data=data), 0.1),
    ]


async def test_a_todo_write_head_says_its_count_once() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, _todo_write())
        await scenes.settle(app, pilot)
        [block] = list(app.main.conversation.query(ToolBlock))
        head = render_tool(block.state, False).renderables[0].plain  # type: ignore[attr-defined]
        assert head.count("/2") == 1 and "0/2 done" in head, head


def test_one_output_token_is_one_token() -> None:
    assert render_busy("Thinking…", 1.0, 9800, 1).plain.endswith("↑ 9.8k ↓ 1 token")
    assert render_busy("Thinking…", 1.0, 9800, 2).plain.endswith("↓ 2 tokens")


def test_the_busy_line_drops_its_least_useful_parts_first() -> None:
    line = ("Running tools…", 12.0, 9800, 312, "Esc to interrupt")
    whole = "⠋ Running tools… 12s · ↑ 9.8k ↓ 312 tokens · Esc to interrupt"
    assert render_busy(*line).plain == whole
    assert render_busy(*line, width=len(whole)).plain == whole
    assert (
        render_busy(*line, width=58).plain
        == "⠋ Running tools… 12s · ↓ 312 tokens · Esc to interrupt"
    )
    assert render_busy(*line, width=50).plain == "⠋ Running tools… 12s · ↓ 312 tokens"
    assert render_busy(*line, width=30).plain == "⠋ Running tools… 12s"
    assert render_busy(*line, width=16).plain == "⠋ Running tools…"
    assert render_busy(*line, width=9).plain == "⠋ Runnin…"


async def test_the_busy_line_fits_a_narrow_terminal() -> None:
    clock = FixedClock()
    app = make_app(clock=clock)
    async with app.run_test(size=(44, 15)) as pilot:
        scenes.feed(app, [TurnStarted("go"), RequestStarted(1, "m"), StreamUsage(18_450, 312)])
        clock.now += 14.2
        await pilot.pause()
        busy = app.main.busy
        shown = busy.render().plain
        assert len(shown) <= busy.content_size.width == 42
        assert shown[1:] == " Thinking… 14s · ↓ 312 tokens", shown  # after the spinner
