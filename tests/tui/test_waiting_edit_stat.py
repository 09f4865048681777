"""A queued or waiting Edit's panel row and block show the change its input makes ("+2 -1"),
before it runs or its diff is read (the report's F11: "○ Edit foo.py", "? Edit foo.py waiting")."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot

from app.engine.events import TurnStarted
from app.tui.app import LatheApp
from tests.tui import scenes, tool_scenes
from tests.tui.conftest import make_app
from tools.base import ToolPreview
from tools.edit import EditTool
from widgets.progress_panel import ProgressPanel
from widgets.tool_block import ToolBlock, render_tool

EDIT = {
    "file_path": "/work/demo/foo.py",
    "old_string": "    x = 1",
    "new_string": "    x = 2\n    y = 3",
}


def waiting_edits() -> list[Any]:
    """A Bash awaiting approval, then two Edits queued behind it."""
    calls = tool_scenes.Calls()
    calls.add(TurnStarted("go"))
    calls.queue("b1", "Bash", {"command": "touch sentinel_a", "description": "Create sentinel A"})
    calls.queue("e1", "Edit", EDIT)
    calls.queue("e2", "Edit", {**EDIT, "file_path": "/work/demo/bar.py", "old_string": "a\nb\nc"})
    calls.start("b1", "Bash")
    question = tool_scenes.question_for(
        tool_scenes._prompt(
            "b1",
            "Bash",
            {"command": "touch sentinel_a"},
            preview=ToolPreview("command", "touch sentinel_a", language="bash"),
        )
    )
    calls.ask(question)
    return calls.out


def test_an_edit_label_carries_its_stat() -> None:
    tool = EditTool()
    assert tool.label(tool.parse_input(EDIT)).stat == "+2 -1"
    every = tool.parse_input({**EDIT, "replace_all": True})
    assert tool.label(every).stat == ""  # how many places is the file's to say


async def test_queued_edits_show_their_stat_in_row_and_block() -> None:
    app: LatheApp = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await scenes.settle(app, pilot)
        scenes.feed(app, waiting_edits())
        await scenes.settle(app, pilot)
        panel = app.main.progress
        assert isinstance(panel, ProgressPanel)
        rows = str(panel.render()).splitlines()
        foo = next(r for r in rows if "foo.py" in r)
        bar = next(r for r in rows if "bar.py" in r)
        assert "+2 -1" in foo and "+2 -3" in bar
        heads = [head_of(b) for b in app.main.conversation.query(ToolBlock)]
        assert any("foo.py" in h and "+2 -1" in h for h in heads)


def head_of(block: ToolBlock) -> str:
    console = Console(width=120, file=io.StringIO(), record=True, color_system=None)
    console.print(render_tool(block.state, expanded=False))
    return console.export_text().splitlines()[0]


SIZES = [
    pytest.param((120, 40), id="120x40"),
    pytest.param((80, 24), id="80x24"),
    pytest.param((60, 20), id="60x20"),
]


@pytest.mark.parametrize("size", SIZES)
def test_waiting_edits_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        await scenes.settle(app, pilot)
        scenes.feed(app, waiting_edits())
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=before)
