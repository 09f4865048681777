"""Snapshots of the context meter at each level, the compaction boundary and `/context`
(fixed size, fixed clock, real engine events)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.context import Breakdown
from app.engine.events import (
    CompactionFinished,
    CompactionStarted,
    ContextUpdated,
    TurnEnded,
    UsageUpdated,
)
from tests.tui import scenes
from tests.tui.conftest import SIZE, ScriptedSession, make_app

SUMMARY = """1. Primary Request and Intent: fix the theme lookup so unknown names fail clearly.
2. Key Technical Concepts and Decisions: ThemeError raised from theme(); no fallback theme.
3. Files and Code Sections: themes/loader.py (theme(), ThemeError).
4. Errors and Fixes: KeyError on an unknown theme -> ThemeError with the name.
5. Pending Tasks: add a test for the error message.
6. Current Work: editing themes/loader.py.
7. Next Step: write tests/unit/test_themes.py."""


def shot(snap_compare: Any, events: list[Any], command: str | None = None, **cfg: Any) -> bool:
    app = make_app(**cfg)
    if command is not None:
        app.session = _BreakdownSession(app)

    async def before(pilot: Pilot[int]) -> None:
        scenes.feed(app, events)
        if command is not None:
            app.run_slash_command(command)
        await scenes.settle(app, pilot)

    return bool(snap_compare(app, terminal_size=SIZE, run_before=before))


class _BreakdownSession(ScriptedSession):
    def context_breakdown(self) -> list[str]:
        return Breakdown(
            model="claude-sonnet-4-5",
            window=200_000,
            used=61_250,
            compact_at=165_600,
            system=1_200,
            memory=2_400,
            tools=6_800,
            messages=14_850,
            tool_results=36_000,
            compactions=1,
            cleared_results=12,
        ).lines()


@pytest.mark.parametrize(
    ("used", "level"), [(20_000, "ok"), (130_000, "low"), (170_000, "critical")]
)
def test_context_meter(snap_compare: Any, used: int, level: str) -> None:
    events = [
        UsageUpdated(used, 900, 0, 0, 0.42),
        ContextUpdated(used, 200_000, 165_600),
    ]
    assert shot(snap_compare, events)


def test_compaction_boundary(snap_compare: Any) -> None:
    events = [
        *scenes.prompt_and_text(),
        TurnEnded("end_turn", "", False, "success", 1),
        CompactionStarted("auto"),
        CompactionFinished("auto", 167_800, 16_700, SUMMARY, 1.24),
        ContextUpdated(16_700, 200_000, 165_600),
    ]
    assert shot(snap_compare, events)


def test_context_command(snap_compare: Any) -> None:
    assert shot(snap_compare, [ContextUpdated(61_250, 200_000, 165_600)], command="/context")
