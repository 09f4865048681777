"""A collapsed tool block's head is cut so that its state goes last (black-box round 3, F12):
"running…", "waiting" and a finished call's time stay whole at 80 and 60 columns."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot

from app.engine.events import RequestStarted, TurnStarted
from app.execution.events import ToolQueued, ToolRunning, ToolStarted
from tests.tui import scenes
from tests.tui.conftest import make_app
from tools.base import CallLabel
from widgets.tool_block import ToolCallState, render_tool

COMMAND = "touch sentinel_a && sleep 3 && echo done-a && echo and-some-more-words-here"
NOTE = "Create sentinel A"


def _first_row(state: ToolCallState, width: int) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(render_tool(state, False))
    return console.export_text().splitlines()[0].rstrip()


@pytest.mark.parametrize("width", [120, 80, 60, 40])
@pytest.mark.parametrize(
    ("status", "elapsed", "word"),
    [("running", None, "running…"), ("awaiting", None, "awaiting approval"), ("done", 3.1, "3.1s")],
)
def test_the_state_is_the_last_thing_cut(
    width: int, status: str, elapsed: float | None, word: str
) -> None:
    state = ToolCallState(
        "t1",
        "Bash",
        status=status,  # type: ignore[arg-type]
        label=COMMAND,
        language="bash",
        note=NOTE,
        result_text="done-a\n",
        elapsed=elapsed,
    )
    row = _first_row(state, width)
    assert len(row) <= width
    assert row.endswith(f"  {word}"), (width, row)
    assert row.startswith("◐ Bash  touch" if status == "running" else row[:1])
    if width < 120:
        assert "…" in row  # the command (or its description) gave way, not the state


def test_a_tiny_row_still_fits() -> None:
    state = ToolCallState("t1", "Bash", status="running", label=COMMAND, language="bash")
    row = _first_row(state, 10)
    assert len(row) <= 10


@pytest.mark.parametrize("size", [(120, 40), (80, 24), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_running_block_keeps_its_state(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app()
    events = [
        TurnStarted("go"),
        RequestStarted(1, "claude-sonnet-4-5"),
        ToolQueued(
            "b1",
            "Bash",
            {"command": COMMAND, "description": NOTE},
            COMMAND,
            False,
            label=CallLabel(COMMAND, "bash", NOTE),
        ),
        ToolStarted("b1", "Bash", 999.0),
        ToolRunning("b1", "Bash", 999.0),
    ]

    async def before(pilot: Pilot[int]) -> None:
        scenes.feed(app, events)
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=before)
