"""Snapshots of the look at 120x40 and 80x24: the main screen in a dark and a light theme (every
block painted by the theme, the archived ones too), thinking collapsed and open, the busy line,
and the welcome line of the first screen. Fixed clock, no ticker, no blink, no host config."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.events import (
    AssistantMessage,
    Notice,
    RequestStarted,
    StreamUsage,
    TextDelta,
    ThinkingDelta,
    TurnEnded,
    TurnStarted,
)
from tests.tui import scenes
from tests.tui.conftest import FixedClock, make_app
from widgets.thinking_block import ThinkingBlock

SIZES = {"120x40": (120, 40), "80x24": (80, 24)}
# The busy line fitted to a narrow terminal (its least useful parts dropped first).
NARROW = {"60x20": (60, 20), "44x15": (44, 15)}
THOUGHT = (
    "The loader raises KeyError on an unknown theme.\n"
    "A ThemeError naming the choices is what the user needs.\n"
)


def conversation() -> list[Any]:
    """A whole session's worth: an answer with code, an edit, a Bash run, a warning, and a
    newer turn whose thinking is collapsed above its answer."""
    events: list[Any] = [*scenes.prompt_and_text()]
    events.append(TurnEnded("end_turn", "", False, "success", 1))
    events += scenes.finished_edit()
    events += scenes.finished_bash(8)
    events.append(
        Notice("Theme file skipped: ~/.config/lathe/themes/x.toml: invalid TOML", "warning")
    )
    events.append(TurnEnded("end_turn", "", False, "success", 1))
    events += [TurnStarted("Why did it fail?"), RequestStarted(2, "claude-sonnet-4-5")]
    events += [ThinkingDelta(line + "\n", 0) for line in THOUGHT.splitlines()]
    events += [TextDelta("Because `THEMES[name]` raises **KeyError** for a name it lacks.", 1)]
    events.append(TurnEnded("end_turn", "", False, "success", 1))
    return events


def shot(snap_compare: Any, size: str, events: list[Any], after: Any = None, **cfg: Any) -> bool:
    app = make_app(**cfg)

    async def before(pilot: Pilot[int]) -> None:
        scenes.feed(app, events)
        await scenes.settle(app, pilot)
        if after is not None:
            await after(app, pilot)
            await scenes.settle(app, pilot)

    return bool(snap_compare(app, terminal_size={**SIZES, **NARROW}[size], run_before=before))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("theme", ["lathe-dark", "lathe-light"])
def test_main_screen_theme(snap_compare: Any, theme: str, size: str) -> None:
    # Few live blocks: the older ones are in the archive, which must take the theme too.
    assert shot(snap_compare, size, conversation(), theme=theme, live_blocks=4)


@pytest.mark.parametrize("size", SIZES)
def test_thinking_expanded(snap_compare: Any, size: str) -> None:
    async def open_it(app: Any, pilot: Pilot[int]) -> None:
        app.main.conversation.query(ThinkingBlock).last().focus()
        await pilot.press("enter")

    assert shot(snap_compare, size, conversation(), open_it)


@pytest.mark.parametrize("size", [*SIZES, *NARROW])
def test_busy_line(snap_compare: Any, size: str) -> None:
    clock = FixedClock()
    events: list[Any] = [
        TurnStarted("Guard unknown themes"),
        RequestStarted(1, "claude-sonnet-4-5"),
        StreamUsage(18_450, 1),
        ThinkingDelta("Reading the loader first.", 0),
        StreamUsage(18_450, 312),
    ]

    async def later(app: Any, pilot: Pilot[int]) -> None:
        clock.now += 14.2
        app.main.busy.refresh()

    assert shot(snap_compare, size, events, later, clock=clock)


@pytest.mark.parametrize("size", SIZES)
def test_welcome_line(snap_compare: Any, size: str) -> None:
    assert shot(snap_compare, size, [])


@pytest.mark.parametrize("size", SIZES)
def test_resumed_history_light(snap_compare: Any, size: str) -> None:
    """A resumed conversation is all archive: on a light theme it is light too."""
    from app.tui.history import ReplayedHistory

    answer = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Check the loader.", "signature": "s"},
            {"type": "text", "text": scenes.MARKDOWN},
        ],
    }
    history = ReplayedHistory(
        tuple([TurnStarted("Fix the theme lookup"), AssistantMessage(answer)] * 4)
    )
    assert shot(snap_compare, size, [history], theme="lathe-light")
