"""A long Bash command and its description: cut with … in a collapsed block, whole (wrapped) when
the block is expanded and in the full view, where search finds its words (round 2, F1)."""

from __future__ import annotations

from rich.console import Console

from widgets.full_view import whole_tool
from widgets.tool_block import ToolCallState, render_tool

COMMAND = (
    'for i in 1 2 3; do echo "this is a very long line number $i that goes on and on past the '
    'edge of any narrow terminal window ENDOFCMD"; done'
)


def _state() -> ToolCallState:
    return ToolCallState(
        "t1",
        "Bash",
        status="done",
        label=COMMAND,
        language="bash",
        note="A long description that also wants to be read in full DESCEND",
        result_text="out\n",
        elapsed=0.4,
    )


def _drawn(renderable: object, width: int) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return " ".join(console.export_text().split())


def test_collapsed_head_is_one_row_cut() -> None:
    drawn = _drawn(render_tool(_state(), False), 80)
    assert "ENDOFCMD" not in drawn and "…" in drawn


def test_expanded_and_full_view_heads_show_the_whole_command() -> None:
    for renderable in (render_tool(_state(), True), whole_tool(_state())):
        drawn = _drawn(renderable, 60)
        assert "ENDOFCMD" in drawn and "DESCEND" in drawn, drawn
