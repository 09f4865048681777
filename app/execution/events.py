"""Lifecycle events of tool calls, emitted by the executor the moment they happen."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.execution.outcome import CallOutcome
from tools.base import ToolProgress


@dataclass(frozen=True)
class ToolQueued:
    tool_use_id: str
    name: str
    input: Mapping[str, Any]
    summary: str
    concurrency_safe: bool
    # The tool's user_facing_name for this input ("srv - Title (MCP)" for an MCP tool).
    title: str = ""


@dataclass(frozen=True)
class ToolStarted:
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


ExecutorEvent = ToolQueued | ToolStarted | ToolProgressed | ToolFinished
