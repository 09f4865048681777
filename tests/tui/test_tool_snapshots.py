"""Snapshots of tool calls and permission dialogs (issue 17, tool part), each at 120x40 and 80x24
(dialogs also at 60x20): what runs, awaiting approval, a deny that ended the turn, long output,
and dialog choices that fit the call and stay visible."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.views import PermissionQuestion
from tests.tui import scenes, tool_scenes
from tests.tui.conftest import make_app

SIZES = [(120, 40), (80, 24)]
DIALOG_SIZES = [(120, 40), (80, 24), (60, 20)]


def _size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def shot(
    snap_compare: Any,
    size: tuple[int, int],
    events: list[Any] | None = None,
    press: tuple[str, ...] = (),
    question: PermissionQuestion | None = None,
) -> bool:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        scenes.feed(app, events or [])
        await scenes.settle(app, pilot)
        if question is not None:
            app.enqueue_permission(question)
            await scenes.settle(app, pilot)
        if press:
            # The keys go to the newest tool block, as after a click on it.
            from widgets.tool_block import ToolBlock

            app.main.conversation.query(ToolBlock).last().focus()
            await scenes.settle(app, pilot)
        for key in press:
            await pilot.press(key)
            await scenes.settle(app, pilot)

    return bool(snap_compare(app, terminal_size=size, run_before=before))


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_blocks_show_what_runs(snap_compare: Any, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size, tool_scenes.what_runs())


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_deny_ended_the_turn(snap_compare: Any, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size, tool_scenes.denied_batch())


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_denied_edit_keeps_its_diff(snap_compare: Any, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size, tool_scenes.denied_edit())


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_long_output_collapsed(snap_compare: Any, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size, tool_scenes.long_output())


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_long_output_expanded_wraps(snap_compare: Any, size: tuple[int, int]) -> None:
    # Enter on the block expands it: head and tail, the long line wrapped.
    assert shot(snap_compare, size, tool_scenes.long_output(), press=("enter",))


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_long_output_whole_view(snap_compare: Any, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size, tool_scenes.long_output(), press=("o",))


@pytest.mark.parametrize("size", DIALOG_SIZES, ids=_size_id)
def test_edit_dialog_choices(snap_compare: Any, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size, question=tool_scenes.edit_question())


@pytest.mark.parametrize("size", DIALOG_SIZES, ids=_size_id)
def test_long_write_dialog_keeps_its_choices(snap_compare: Any, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size, question=tool_scenes.long_write_question())


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_dialog_without_a_rule_to_offer(snap_compare: Any, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size, question=tool_scenes.no_rule_question())
