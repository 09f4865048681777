"""Snapshots (120x40 and 80x24) of the full view showing everything (denial lines, thinking open,
a failed attempt whole, a folded word found by search), a resumed denied batch as it was shown,
a call stopped at its question without a time, and commands in a light theme."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.replay import replay_events
from app.tui.history import ReplayedHistory
from tests.tui import full_view_scenes, scenes, tool_scenes
from tests.tui.conftest import make_app
from tools.registry import get_all_base_tools

SIZES = {"120x40": (120, 40), "80x24": (80, 24)}


def shot(
    snap_compare: Any, size: str, events: list[Any], keys: tuple[str, ...] = (), **cfg: Any
) -> bool:
    app = make_app(**cfg)

    async def before(pilot: Pilot[int]) -> None:
        scenes.feed(app, events)
        await scenes.settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await scenes.settle(app, pilot)
        for _ in range(3):
            await pilot.pause()

    return bool(snap_compare(app, terminal_size=SIZES[size], run_before=before))


@pytest.mark.parametrize("size", SIZES)
def test_full_view_shows_denied_and_not_run(snap_compare: Any, size: str) -> None:
    assert shot(snap_compare, size, tool_scenes.denied_batch(), ("ctrl+o",))


@pytest.mark.parametrize("size", SIZES)
def test_full_view_finds_a_word_of_a_denied_edit(snap_compare: Any, size: str) -> None:
    keys = ("ctrl+o", "slash", *"ThemeError", "enter")
    assert shot(snap_compare, size, tool_scenes.denied_edit(), keys)


@pytest.mark.parametrize("size", SIZES)
def test_full_view_finds_a_folded_word(snap_compare: Any, size: str) -> None:
    keys = ("ctrl+o", "slash", *"tailend", "enter")
    assert shot(snap_compare, size, full_view_scenes.folded_output(), keys)


@pytest.mark.parametrize("size", SIZES)
def test_full_view_thinking_open_failed_attempt_whole(snap_compare: Any, size: str) -> None:
    events = full_view_scenes.thinking_and_failed_attempt()
    assert shot(snap_compare, size, events, ("ctrl+o",))


@pytest.mark.parametrize("size", SIZES)
def test_resumed_denied_batch(snap_compare: Any, size: str) -> None:
    messages, denials = full_view_scenes.denied_batch_messages()
    history = ReplayedHistory(tuple(replay_events(messages, get_all_base_tools(), denials)))
    assert shot(snap_compare, size, [history])


@pytest.mark.parametrize("size", SIZES)
def test_resumed_edits_keep_their_diffs(snap_compare: Any, size: str) -> None:
    messages, denials = full_view_scenes.resumed_edits()
    events = replay_events(messages, get_all_base_tools(), denials, cwd="/work/demo")
    assert shot(snap_compare, size, [ReplayedHistory(tuple(events))])


@pytest.mark.parametrize("size", SIZES)
def test_stopped_at_its_question_has_no_time(snap_compare: Any, size: str) -> None:
    assert shot(snap_compare, size, full_view_scenes.stopped_at_question())


@pytest.mark.parametrize("size", SIZES)
def test_commands_in_a_light_theme(snap_compare: Any, size: str) -> None:
    assert shot(snap_compare, size, tool_scenes.what_runs(), theme="catppuccin-latte")
