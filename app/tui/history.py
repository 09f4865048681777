"""Showing a resumed conversation: its messages become the events a live turn would have sent.

User prompts become TurnStarted, assistant text AssistantMessage, and each tool_use a finished tool
block carrying its recorded tool_result, so a resumed session looks like the one that was left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from app.engine.events import AssistantMessage, EngineEvent, TurnStarted
from app.execution.events import ToolFinished, ToolQueued
from app.execution.outcome import CallOutcome


def _blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, Mapping)]


def replay_events(messages: Iterable[Mapping[str, Any]]) -> list[EngineEvent]:
    messages = list(messages)
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
            text = "\n".join(
                str(b.get("text", ""))
                for b in blocks
                if b.get("type") == "text"
                and not str(b.get("text", "")).startswith("<system-reminder>")
            ).strip()
            if text:
                events.append(TurnStarted(text))
            continue
        text_blocks = [b for b in blocks if b.get("type") == "text"]
        if text_blocks:
            events.append(AssistantMessage({"role": "assistant", "content": text_blocks}))
        for block in blocks:
            if block.get("type") != "tool_use":
                continue
            tool_id = str(block.get("id", ""))
            raw_input = block.get("input")
            tool_input: Mapping[str, Any] = raw_input if isinstance(raw_input, Mapping) else {}
            events.append(ToolQueued(tool_id, str(block.get("name", "")), tool_input, "", False))
            result = results.get(tool_id)
            if result is not None:
                outcome = CallOutcome(
                    tool_use_id=tool_id,
                    tool_name=str(block.get("name", "")),
                    result_block=dict(result),
                    is_error=bool(result.get("is_error")),
                    data=result.get("content"),
                    input=dict(tool_input),
                )
                events.append(ToolFinished(tool_id, outcome, 0.0))
    return events


def replay(messages: Iterable[Mapping[str, Any]], sink: Callable[[EngineEvent], None]) -> None:
    for event in replay_events(messages):
        sink(event)
