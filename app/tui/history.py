"""Showing a resumed conversation: the engine replays it as the events a live turn would have
sent (SessionPort.history, app/engine/replay.py); the App archives all but the newest."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType

from app.engine.api import (
    AssistantMessage,
    CompactionFinished,
    EngineEvent,
    Interrupted,
    ToolCallUpdated,
    TurnStarted,
)


@dataclass(frozen=True)
class ReplayedHistory:
    """A resumed conversation for the TUI, as events. The router archives all but the newest
    blocks straight away (no widget each), so a 10,000-message session opens in a blink."""

    events: tuple[EngineEvent, ...]


def archived_renderables(events: Iterable[EngineEvent]) -> list[RenderableType]:
    """What the conversation's archive shows for replayed events: the renderables its blocks
    freeze into, each built only when first drawn (with a cheap height estimate until then)."""
    from app.engine.api import message_text
    from app.tui.event_router import DENIED_TEXT, INTERRUPTED_TEXT
    from app.tui.translate import finished_fields, queued_state
    from widgets.conversation import Deferred, estimate_text_lines
    from widgets.frozen_markdown import FrozenMarkdown
    from widgets.full_view import whole_tool
    from widgets.message_blocks import NoticeBlock, UserBlock
    from widgets.thinking_block import render_thinking, thinking_blocks
    from widgets.tool_block import ToolCallState, render_tool

    def text_estimate(text: str) -> Callable[[int], int]:
        return lambda width: estimate_text_lines(text, width)

    def user(prompt: str) -> Callable[[], RenderableType]:
        return lambda: UserBlock(prompt).frozen()

    def markdown(text: str) -> Callable[[], RenderableType]:
        return lambda: FrozenMarkdown(text)

    def thought(block: Mapping[str, Any], expanded: bool = False) -> Callable[[], RenderableType]:
        redacted = block.get("type") == "redacted_thinking"
        text = str(block.get("thinking", ""))
        return lambda: render_thinking(text, expanded=expanded, finished=True, redacted=redacted)

    def tool(state: ToolCallState) -> Callable[[], RenderableType]:
        return lambda: render_tool(state, False)

    def whole(state: ToolCallState) -> Callable[[], RenderableType]:
        return lambda: whole_tool(state)

    def lines(n: int) -> Callable[[int], int]:
        return lambda width: n

    out: list[RenderableType] = []
    pending: dict[str, ToolCallState] = {}
    for event in events:
        if isinstance(event, TurnStarted):
            prompt = event.prompt
            out.append(Deferred(user(prompt), text_estimate("> " + prompt), "> " + prompt))
        elif isinstance(event, AssistantMessage):
            for thinking in thinking_blocks(event.message):
                # The full view (Ctrl+O) shows the thinking open, as the live one does.
                opened = Deferred(thought(thinking, expanded=True), lines(3))
                out.append(Deferred(thought(thinking), lines(1), full=opened))
            text = message_text(event.message)
            if text:
                out.append(Deferred(markdown(text), text_estimate(text), text))
        elif isinstance(event, Interrupted):
            # The marker the live turn showed (the transcript's "[Request interrupted by user]"),
            # "Denied · ..." when the user's deny ended the turn.
            marker = DENIED_TEXT if event.denied else INTERRUPTED_TEXT
            out.append(Deferred(NoticeBlock(marker, "interrupt").frozen, lines(1)))
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
        elif isinstance(event, ToolCallUpdated) and event.change == "queued":
            view = event.view
            pending[view.tool_use_id] = queued_state(view)
        elif isinstance(event, ToolCallUpdated) and event.change == "finished":
            state = pending.pop(event.view.tool_use_id, None)
            if state is not None:
                for key, value in finished_fields(event.view).items():
                    if key != "elapsed":  # a replayed call's time is not known
                        setattr(state, key, value)
                shown = min(len(state.result_text.splitlines()), 4)
                if state.shows_diff:  # an edit's diff (made or denied), up to its cut
                    shown = min(len(state.diff.splitlines()), 21) + bool(state.outcome)
                out.append(
                    Deferred(tool(state), lines(1 + shown), full=Deferred(whole(state), lines(3)))
                )
    return out
