"""A call's started_at and a front end's running clock are one clock, the API's CALL_CLOCK: the
executor stamps ToolRunning with it, the tracker times questions with it, and the TUI's panel
subtracts started_at from it (time.perf_counter and time.monotonic differ in epoch on Windows)."""

from __future__ import annotations

import inspect
import time

from app.engine.api import CALL_CLOCK
from app.engine.tool_views import ToolCallTracker
from app.execution.streaming_executor import StreamingToolExecutor
from app.tui.ports import TuiConfig


def _default_clock(cls: type) -> object:
    return inspect.signature(cls.__init__).parameters["clock"].default


def test_started_at_and_the_panel_are_on_one_documented_clock() -> None:
    assert CALL_CLOCK is time.monotonic
    assert _default_clock(StreamingToolExecutor) is CALL_CLOCK
    assert _default_clock(ToolCallTracker) is CALL_CLOCK
    assert TuiConfig.clock is CALL_CLOCK or TuiConfig().clock is CALL_CLOCK
    from app.engine import views

    assert "CALL_CLOCK" in (views.ToolCallView.__doc__ or "")
