"""A resumed conversation as events: its messages become what a live turn would have sent.

User prompts become TurnStarted, assistant text and thinking AssistantMessage, a compaction boundary
CompactionFinished, and each tool_use a queued-then-finished tool-call view carrying its
recorded tool_result, so a resumed session looks like the one that was left.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from app.engine.compact_prompt import SUMMARY_INTRO, extract_summary
from app.engine.events import (
    AssistantMessage,
    CompactionFinished,
    EngineEvent,
    TurnEnded,
    TurnStarted,
)
from app.engine.tool_views import ToolCallTracker
from app.execution.events import ToolFinished, ToolQueued
from app.execution.outcome import CallOutcome
from tools.base import Tool


def _blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, Mapping)]


def summarize_with(tools: Iterable[Tool[Any]], name: str, tool_input: Mapping[str, Any]) -> str:
    """The session's own tool's summary (a tool that is gone, or bad input: none)."""
    for tool in tools:
        if tool.name == name:
            try:
                return str(tool.summary(tool.parse_input(tool_input)))
            except Exception:
                return ""
    return ""


def replay_events(
    messages: Iterable[Mapping[str, Any]], tools: Iterable[Tool[Any]] | None = None
) -> list[EngineEvent]:
    messages = list(messages)
    known = tuple(tools or ())
    calls = ToolCallTracker()
    results: dict[str, Mapping[str, Any]] = {}
    for message in messages:
        if message.get("role") == "user":
            for block in _blocks(message):
                if block.get("type") == "tool_result":
                    results[str(block.get("tool_use_id", ""))] = block
    events: list[EngineEvent] = []
    for message in messages:
        blocks = _blocks(message)
        if message.get("role") == "user":
            first = str(blocks[0].get("text", "")) if blocks else ""
            if first.startswith(SUMMARY_INTRO):
                # A compaction boundary: the summary that replaced what is above it.
                events.append(CompactionFinished("", 0, 0, extract_summary(first), 0.0))
                continue
            text = "\n".join(
                str(b.get("text", ""))
                for b in blocks
                if b.get("type") == "text"
                and not str(b.get("text", "")).startswith("<system-reminder>")
            ).strip()
            if text:
                events.append(TurnStarted(text))
            continue
        # The thinking too: a front end that showed it live (ACP's thoughts) shows it again.
        shown = [b for b in blocks if b.get("type") in ("text", "thinking")]
        if shown:
            events.append(AssistantMessage({"role": "assistant", "content": shown}))
        for block in blocks:
            if block.get("type") != "tool_use":
                continue
            tool_id = str(block.get("id", ""))
            raw_input = block.get("input")
            tool_input: Mapping[str, Any] = raw_input if isinstance(raw_input, Mapping) else {}
            name = str(block.get("name", ""))
            summary = summarize_with(known, name, tool_input)
            events.append(calls.queued(ToolQueued(tool_id, name, tool_input, summary, False)))
            result = results.get(tool_id)
            if result is not None:
                outcome = CallOutcome(
                    tool_use_id=tool_id,
                    tool_name=name,
                    result_block=dict(result),
                    is_error=bool(result.get("is_error")),
                    data=result.get("content"),
                    input=dict(tool_input),
                )
                events.append(calls.finished(ToolFinished(tool_id, outcome, 0.0)))
    if events:
        # Close the replayed history as a finished turn: nothing is running.
        events.append(TurnEnded(None, "", False, "success", 0))
    return events
