"""The busy line during a retry's wait: the countdown and the turn's time apart (black-box round
3, F10: it read "Retrying in 0.4s 1s")."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.events import RequestStarted, Retrying, StreamUsage, TextDelta, TurnStarted
from tests.tui import scenes
from tests.tui.conftest import SIZE, FixedClock, make_app


def _events() -> list[Any]:
    return [
        TurnStarted("tell me more"),
        RequestStarted(1, "claude-sonnet-4-5"),
        StreamUsage(10200, 1),
        Retrying(2, 0.4, "the connection dropped mid-stream"),
    ]


async def test_the_countdown_is_apart_from_the_elapsed_time() -> None:
    clock = FixedClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, _events()[:3])
        clock.now += 1.2
        scenes.feed(app, _events()[3:])
        await pilot.pause()
        busy = app.main.busy
        line = busy.render().plain
        assert "Retrying in 0.4s · 1s elapsed · ↑ 10.2k ↓ 1 token" in line, line
        clock.now += 0.25
        assert "Retrying in 0.1s · 1s elapsed" in busy.render().plain  # it counts down
        clock.now += 0.6
        assert "Retrying now · 2s elapsed" in busy.render().plain
        # The next attempt streams: the usual line, no countdown.
        scenes.feed(app, [TextDelta("Here", 0)])
        await pilot.pause()
        line = busy.render().plain
        assert "Writing… 2s ·" in line and "Retrying" not in line and "elapsed" not in line


@pytest.mark.parametrize("size", [(120, 40), (80, 24), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_busy_line_while_retrying(snap_compare: Any, size: tuple[int, int]) -> None:
    clock = FixedClock()
    app = make_app(clock=clock)

    async def before(pilot: Pilot[int]) -> None:
        scenes.feed(app, _events()[:3])
        clock.now += 3.0
        scenes.feed(app, _events()[3:])
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=before)
