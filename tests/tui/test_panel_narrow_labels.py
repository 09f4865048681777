"""The progress panel keeps what runs readable at 60 columns (tui-r4 F1): `Bash sleep 4` and
`Grep "row" in .` whole, as at 70 and 80 columns, instead of `Bash sleep…` beside ~38 empty
columns (the bar's, reserved though no row had one, and the output line's)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.events import TurnStarted
from tests.tui import scenes, tool_scenes
from tests.tui.conftest import make_app
from widgets.progress_panel import ProgressPanel, ProgressRow


def running_pair(output: str = "") -> list[Any]:
    calls = tool_scenes.Calls()
    calls.add(TurnStarted("x"))
    calls.queue("b1", "Bash", {"command": "sleep 4", "description": "Wait four seconds"})
    calls.queue("g1", "Grep", {"pattern": "row", "path": "."})
    calls.start("b1", "Bash", at=998.6)
    calls.start("g1", "Grep", at=999.9)
    if output:
        calls.output("b1", output)
    return calls.out


def panel_rows(app: Any) -> list[str]:
    panel = app.main.progress
    assert isinstance(panel, ProgressPanel)
    width = panel.content_size.width
    return [panel.render_line(y).text[:width] for y in range(1, 1 + len(panel.rows))]


@pytest.mark.parametrize("columns", [60, 70, 80, 120])
async def test_labels_are_whole_at_every_width(columns: int) -> None:
    app = make_app()
    async with app.run_test(size=(columns, 20)) as pilot:
        await scenes.settle(app, pilot)
        scenes.feed(app, running_pair())
        await scenes.settle(app, pilot)
        bash, grep = panel_rows(app)
        assert "Bash sleep 4" in bash and "1.4s" in bash, bash
        assert 'Grep "row" in .' in grep, grep


def test_columns_stay_put_when_output_arrives() -> None:
    panel = ProgressPanel(clock=lambda: 1000.0, tick_s=None)
    panel.rows["b1"] = ProgressRow("b1", "Bash", "sleep 4 && make all", "running", 999.0)
    panel.rows["b1"].last_line = "step 1"
    before = panel._columns(58)
    panel.rows["b1"].last_line = "compiling a very long file name that goes on and on"
    assert panel._columns(58) == before  # a line's length never moves them
    # A label that fits its 2/5 keeps the old columns, bar column included.
    panel.rows["b1"].summary = "ls"
    assert panel._columns(98) == (27, 42, True)
    # A bar in some row keeps its column; the label still gets more than 2/5.
    panel.rows["b1"].summary = "sleep 4 && make all"
    panel.rows["b1"].fraction = 0.5
    label, line, bar = panel._columns(58)
    assert bar and label == len("Bash sleep 4 && make all") - 3 and line == 8


SIZES = [
    pytest.param((60, 20), id="60x20"),
    pytest.param((80, 24), id="80x24"),
    pytest.param((120, 40), id="120x40"),
]


@pytest.mark.parametrize("size", SIZES)
def test_panel_labels_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        await scenes.settle(app, pilot)
        scenes.feed(app, running_pair("step 3 of 9"))
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=before)


def four_long_calls() -> list[Any]:
    calls = tool_scenes.Calls()
    calls.add(TurnStarted("go"))
    command = "sleep 3 && echo alpha-beta-gamma-delta-epsilon-zeta-eta-theta-iota-kappa"
    calls.queue("b1", "Bash", {"command": command, "description": "Sleep then print a long line"})
    path = "src/components/widgets/new_widget_file.py"
    calls.queue("w1", "Write", {"file_path": path, "content": "a\nb\n"})
    calls.queue("r1", "Read", {"file_path": "docs/a/very/long/path/to/a/document.html"})
    calls.queue("g1", "Grep", {"pattern": "some_long_identifier_name", "path": "src"})
    calls.start("b1", "Bash", at=998.7)
    return calls.out


async def test_four_long_calls_use_the_free_columns_at_80() -> None:
    """tui-r5 F7: with no output line to show, the subjects take the columns the output line
    would have had: at 80 columns the Write's "(2 lines)" and the whole path are there, and no
    row is cut while 17 columns stay empty."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await scenes.settle(app, pilot)
        scenes.feed(app, four_long_calls())
        await scenes.settle(app, pilot)
        rows = panel_rows(app)
        bash, write, read, grep = rows
        assert "src/components/widgets/new_widget_file.py (2 lines)" in write, rows
        assert "docs/a/very/long/path/to/a/document.html" in read, rows
        assert "some_long_identifier_name" in grep, rows
        assert "1.3s" in bash, rows
        # The Bash command is the longest: cut, but only at the row's end.
        assert len(bash.rstrip()) >= 76, rows
