"""Showing a resumed conversation: its messages become the events a live turn would have sent.

User prompts become TurnStarted, assistant text AssistantMessage, and each tool_use a finished tool
block carrying its recorded tool_result, so a resumed session looks like the one that was left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from app.engine.events import AssistantMessage, EngineEvent, TurnEnded, TurnStarted
from app.execution.events import ToolFinished, ToolQueued
from app.execution.outcome import CallOutcome


def _blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, Mapping)]


def replay_events(
    messages: Iterable[Mapping[str, Any]],
    summarize: Callable[[str, Mapping[str, Any]], str] | None = None,
) -> list[EngineEvent]:
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
            name = str(block.get("name", ""))
            summary = summarize(name, tool_input) if summarize is not None else ""
            events.append(ToolQueued(tool_id, name, tool_input, summary, False))
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
                events.append(ToolFinished(tool_id, outcome, 0.0))
    if events:
        # Close the replayed history as a finished turn: nothing is running.
        events.append(TurnEnded(None, "", False, "success", 0))
    return events


def replay(
    messages: Iterable[Mapping[str, Any]],
    sink: Callable[[EngineEvent], None],
    summarize: Callable[[str, Mapping[str, Any]], str] | None = None,
) -> None:
    for event in replay_events(messages, summarize):
        sink(event)


def tool_summarizer(tools: Iterable[Any]) -> Callable[[str, Mapping[str, Any]], str]:
    """Summaries from the session's own tools (a tool that is gone, or bad input: no summary)."""
    by_name = {t.name: t for t in tools}

    def summarize(name: str, tool_input: Mapping[str, Any]) -> str:
        tool = by_name.get(name)
        if tool is None:
            return ""
        try:
            return str(tool.summary(tool.parse_input(tool_input)))
        except Exception:
            return ""

    return summarize
