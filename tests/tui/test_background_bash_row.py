"""tui-r5 F2: at 80 columns a background Bash whose command and description fill the head row
kept its description whole and cut its only result to "Running i…"; the summary now goes to a
row of its own, whole, as Claude Code shows it ("⎿ Running in the background …")."""

from __future__ import annotations

import pytest
from rich.console import Console

from widgets.tool_block import ToolCallState, render_tool

SUMMARY = "Running in the background (bash_fa387ece)"


def _rows(width: int) -> list[str]:
    state = ToolCallState(
        tool_use_id="b1",
        name="Bash",
        summary="Background job",
        status="done",
        elapsed=0.1,
        label="sleep 1; echo bg-output-here; exit 2",
        note="Background job",
        result_summary=SUMMARY,
    )
    console = Console(width=width, record=True, color_system=None)
    console.print(render_tool(state, expanded=False))
    return console.export_text().rstrip("\n").splitlines()


@pytest.mark.parametrize("width", [60, 80])
def test_the_background_state_is_whole_on_its_own_row(width: int) -> None:
    rows = _rows(width)
    assert rows[0].startswith("● Bash") and rows[0].rstrip().endswith("0.1s"), rows
    assert rows[1].strip() == f"⎿ {SUMMARY}", rows


def test_it_stays_on_the_head_row_when_it_fits() -> None:
    rows = _rows(160)
    assert len(rows) == 1 and SUMMARY in rows[0], rows
