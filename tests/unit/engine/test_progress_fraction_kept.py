"""A progress report without a fraction keeps the bar where the last one left it: an MCP server
that reported `total` once and then sends a message alone must not empty the bar (N1)."""

from __future__ import annotations

from app.engine.tool_views import ToolCallTracker
from app.execution.events import ToolProgressed, ToolQueued
from tools.base import ToolProgress


def test_the_last_fraction_is_kept_by_a_report_without_one() -> None:
    tracker = ToolCallTracker()
    tracker.queued(ToolQueued("m1", "mcp__demo__slow", {}, "", False))
    half = tracker.progressed(ToolProgressed("m1", ToolProgress("step 1", fraction=0.5), 0.0))
    assert half.view.fraction == 0.5
    text_only = tracker.progressed(ToolProgressed("m1", ToolProgress("still going"), 0.0))
    assert (text_only.view.fraction, text_only.view.progress_text) == (0.5, "still going")
    done = tracker.progressed(ToolProgressed("m1", ToolProgress("", fraction=1.0), 0.0))
    assert done.view.fraction == 1.0
