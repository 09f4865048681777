"""Lifecycle events of tool calls, emitted by the executor the moment they happen."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.execution.outcome import CallOutcome
from tools.base import CallLabel, OutputFocus, ToolProgress

# The one clock of a call's times (ToolRunning.at, hence ToolCallView.started_at; elapsed): a
# front end that shows a running clock subtracts started_at from this same clock. Monotonic, so
# a clock change never makes a call run backwards; the same on every platform (perf_counter and
# monotonic have different epochs on Windows).
CALL_CLOCK = time.monotonic


@dataclass(frozen=True)
class ToolQueued:
    tool_use_id: str
    name: str
    input: Mapping[str, Any]
    summary: str
    concurrency_safe: bool
    # The tool's user_facing_name for this input ("srv - Title (MCP)" for an MCP tool).
    title: str = ""
    # The tool's one-line label for this input (a command, a path) and which end of a long
    # output its block shows (tools/base.py declares both).
    label: CallLabel | None = None
    output_focus: OutputFocus = "head"


@dataclass(frozen=True)
class ToolStarted:
    """The executor took the call: it is being checked now (input validation, PreToolUse hooks,
    the permission decision, a question to the user). It has not run yet."""

    tool_use_id: str
    name: str
    at: float


@dataclass(frozen=True)
class ToolRunning:
    """The call was allowed and its tool's `call` starts now: the moment it really runs. Emitted
    once per call that gets this far (never for a denied or blocked call), MCP tools included;
    the call's elapsed time counts from `at`."""

    tool_use_id: str
    name: str
    at: float


@dataclass(frozen=True)
class ToolProgressed:
    tool_use_id: str
    progress: ToolProgress
    at: float


@dataclass(frozen=True)
class ToolFinished:
    tool_use_id: str
    outcome: CallOutcome
    elapsed: float


ExecutorEvent = ToolQueued | ToolStarted | ToolRunning | ToolProgressed | ToolFinished
