"""Showing a resumed conversation: its messages become the events a live turn would have sent.

User prompts become TurnStarted, assistant text AssistantMessage, and each tool_use a finished tool
block carrying its recorded tool_result, so a resumed session looks like the one that was left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType

from app.engine.compact_prompt import SUMMARY_INTRO, extract_summary
from app.engine.events import (
    AssistantMessage,
    CompactionFinished,
    EngineEvent,
    TurnEnded,
    TurnStarted,
)
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


@dataclass(frozen=True)
class ReplayedHistory:
    """A resumed conversation for the TUI, as events. The router archives all but the newest
    blocks straight away (no widget each), so a 10,000-message session opens in a blink."""

    events: tuple[EngineEvent, ...]


def replay(
    messages: Iterable[Mapping[str, Any]],
    sink: Callable[[Any], None],
    summarize: Callable[[str, Mapping[str, Any]], str] | None = None,
) -> None:
    sink(ReplayedHistory(tuple(replay_events(messages, summarize))))


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


def archived_renderables(events: Iterable[EngineEvent]) -> list[RenderableType]:
    """What the conversation's archive shows for replayed events: the renderables its blocks
    freeze into, each built only when first drawn (with a cheap height estimate until then)."""
    from rich.markdown import Markdown as RichMarkdown

    from app.tui.translate import message_text, outcome_view
    from widgets.conversation import Deferred, estimate_text_lines
    from widgets.message_blocks import UserBlock
    from widgets.tool_block import ToolCallState, render_tool

    def text_estimate(text: str) -> Callable[[int], int]:
        return lambda width: estimate_text_lines(text, width)

    def user(prompt: str) -> Callable[[], RenderableType]:
        return lambda: UserBlock(prompt).frozen()

    def markdown(text: str) -> Callable[[], RenderableType]:
        return lambda: RichMarkdown(text)

    def tool(state: ToolCallState) -> Callable[[], RenderableType]:
        return lambda: render_tool(state, False)

    def lines(n: int) -> Callable[[int], int]:
        return lambda width: n

    out: list[RenderableType] = []
    pending: dict[str, ToolCallState] = {}
    for event in events:
        if isinstance(event, TurnStarted):
            prompt = event.prompt
            out.append(Deferred(user(prompt), text_estimate("> " + prompt)))
        elif isinstance(event, AssistantMessage):
            text = message_text(event.message)
            if text:
                out.append(Deferred(markdown(text), text_estimate(text)))
        elif isinstance(event, CompactionFinished):
            from widgets.compaction_block import CompactionBlock

            block = CompactionBlock(
                event.trigger,
                event.tokens_before,
                event.tokens_after,
                event.summary,
                event.duration_s,
            )
            out.append(Deferred(block.frozen, lines(6)))
        elif isinstance(event, ToolQueued):
            pending[event.tool_use_id] = ToolCallState(event.tool_use_id, event.name, event.summary)
        elif isinstance(event, ToolFinished):
            state = pending.pop(event.tool_use_id, None)
            if state is not None:
                for key, value in outcome_view(event.outcome).items():
                    setattr(state, key, value)
                shown = min(len(state.result_text.splitlines()), 4)
                out.append(Deferred(tool(state), lines(1 + shown)))
    return out
