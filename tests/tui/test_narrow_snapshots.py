"""The main screen's one-line parts at 120x40 and 80x24 (issue 17, attack round 1 notes): the
status bar keeps one line (the least important parts go first), the prompt's placeholder fits,
and the `/` popup's wrapped helps stay under their column."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.events import ContextUpdated, UsageUpdated
from tests.tui import scenes
from tests.tui.conftest import make_app

SIZES = [(120, 40), (80, 24)]


def _size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_status_bar_keeps_one_line(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        scenes.feed(
            app,
            [UsageUpdated(20_000, 900, 1_200, 0, 0.42), ContextUpdated(20_000, 200_000, 165_600)],
        )
        app.main.status_bar.set(
            folder="~/work/a-much-longer-project-folder-name", branch="feature/x"
        )
        await scenes.settle(app, pilot)
        bar = app.main.status_bar
        line = bar.render().plain
        assert "\n" not in line and len(line) <= bar.content_size.width
        assert "context 90% left" in line and "claude-sonnet-4-5" in line

    assert snap_compare(app, terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_slash_popup_wrapped_helps_are_indented(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        await pilot.press("/", "c")
        await scenes.settle(app, pilot)
        lines = app.main.hint.render().plain.splitlines()
        column = lines[0].index(lines[0].split()[2])  # where the first help starts
        for line in lines[1:]:
            if line.strip() and not line.lstrip().startswith(("/", "❯")):
                assert line.index(line.strip()) == column, lines  # a wrapped help, indented

    assert snap_compare(app, terminal_size=size, run_before=before)
