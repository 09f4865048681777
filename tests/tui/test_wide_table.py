"""A markdown table that cannot fit without cutting a cell (a 62-character word in six columns)
shows each row as "Column: value" lines, as Claude Code does, live and frozen (the archive, the
full view): nothing is cut with "…". A table that fits keeps its grid (test_markdown_render.py)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from app.engine.events import AssistantMessage, TurnEnded, TurnStarted
from app.tui.app import LatheApp
from tests.tui import scenes
from tests.tui.conftest import make_app
from widgets.assistant_block import AssistantBlock
from widgets.frozen_markdown import FrozenMarkdown
from widgets.stacked_table import FittingMarkdownTable

WORD = "averyveryverylongunbreakablewordthatgoesonandonforeverandever"
WIDE = f"""Wide table:

| Column A | Column B header | Column C long header | Column D | Column E | Column F |
|---|---|---|---|---|---|
| {WORD} | b2 | c3 text | d4 | e5 | f6 |
| a | b | c | d | e | f |

After the table.
"""
CELLS = ["Column A: ", "Column B header: b2", "Column C long header: c3 text", "Column F: f"]


def frozen(width: int) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(FrozenMarkdown(WIDE))
    return console.export_text()


@pytest.mark.parametrize("width", [60, 80])
def test_frozen_wide_table_is_stacked_not_cut(width: int) -> None:
    text = frozen(width)
    assert "…" not in text
    assert WORD in text.replace("\n", "").replace(" ", "")
    for cell in CELLS:
        assert cell in text
    assert "Column A: a\n" in text  # the second row, after a rule
    assert "─" * 40 in text


def test_frozen_table_that_fits_keeps_its_grid() -> None:
    text = frozen(200)
    assert "Column A: " not in text
    assert WORD in text and "Column C long header" in text


class Show(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield AssistantBlock(WIDE)


async def test_live_wide_table_stacks_when_narrow_and_grids_when_wide() -> None:
    app = Show()
    async with app.run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        table = app.query_one(FittingMarkdownTable)
        assert table.has_class("-stack")
        shown = str(table.query_one(".-stacked").render())
        for cell in CELLS:
            assert cell in shown
        await pilot.resize_terminal(200, 40)
        await pilot.pause()
        await pilot.pause()
        assert not table.has_class("-stack")
        await pilot.resize_terminal(80, 40)
        await pilot.pause()
        await pilot.pause()
        assert table.has_class("-stack")


SIZES = [
    pytest.param((120, 40), id="120x40"),
    pytest.param((80, 24), id="80x24"),
    pytest.param((60, 20), id="60x20"),
]


def wide_events() -> list[Any]:
    message = {"role": "assistant", "content": [{"type": "text", "text": WIDE}]}
    return [
        TurnStarted("show table"),
        AssistantMessage(message),
        TurnEnded("end_turn", "", False, "success", 1),
    ]


@pytest.mark.parametrize("size", SIZES)
def test_wide_table_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app()

    async def run_before(pilot: Pilot[int]) -> None:
        await scenes.settle(app, pilot)
        scenes.feed(app, wide_events())
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_wide_table_full_view_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    app: LatheApp = make_app()

    async def run_before(pilot: Pilot[int]) -> None:
        await scenes.settle(app, pilot)
        scenes.feed(app, wide_events())
        await scenes.settle(app, pilot)
        await pilot.press("ctrl+o")
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
