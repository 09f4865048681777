"""Engine events and stored messages as ACP session/update payloads.

What a tool call looks like to the client comes from the engine's ToolCallView: the kind, the
files and the title the tool declared, and the diff the engine read (never a Tool, its name or
its input's fields): an MCP tool or a new built-in shows up right without a change here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    ContentToolCallContent,
    FileEditToolCallContent,
    PlanEntry,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolKind,
    UserMessageChunk,
)

from app.engine.api import (
    AssistantMessage,
    CompactionFinished,
    EngineEvent,
    FileDiff,
    ToolCallUpdated,
    ToolCallView,
    TurnStarted,
    message_text,
)
from tools.todo_write import Todo

Content = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent
SessionUpdate = (
    AgentMessageChunk
    | AgentThoughtChunk
    | UserMessageChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
)

# The client shows tool output in the editor: past this it is cut (the model got all of it).
MAX_SHOWN_CHARS = 20_000


def text(value: str) -> TextContentBlock:
    return TextContentBlock(type="text", text=value)


def message_chunk(value: str) -> AgentMessageChunk:
    return AgentMessageChunk(session_update="agent_message_chunk", content=text(value))


def thought_chunk(value: str) -> AgentThoughtChunk:
    return AgentThoughtChunk(session_update="agent_thought_chunk", content=text(value))


def user_chunk(value: str) -> UserMessageChunk:
    return UserMessageChunk(session_update="user_message_chunk", content=text(value))


def text_content(value: str) -> ContentToolCallContent:
    if len(value) > MAX_SHOWN_CHARS:
        value = value[:MAX_SHOWN_CHARS] + f"\n… ({len(value) - MAX_SHOWN_CHARS} more characters)"
    return ContentToolCallContent(type="content", content=text(value))


def terminal_content(terminal_id: str) -> TerminalToolCallContent:
    return TerminalToolCallContent(type="terminal", terminal_id=terminal_id)


class ToolView:
    """How one call is shown: title, kind, the files it touches and the change it proposes, all
    from the engine's view of the call (what the tool declared; the diff the engine read)."""

    def __init__(self, call: ToolCallView) -> None:
        self.call = call
        self.input = dict(call.input)
        self.title = f"{call.display_name or call.name} {call.title}".strip()
        self.kind: ToolKind = call.kind

    def locations(self) -> list[ToolCallLocation] | None:
        if not self.call.locations:
            return None
        return [ToolCallLocation(path=loc.path, line=loc.line) for loc in self.call.locations]

    def start(self, tool_use_id: str) -> ToolCallStart:
        return ToolCallStart(
            session_update="tool_call",
            tool_call_id=tool_use_id,
            title=self.title,
            kind=self.kind,
            status="pending",
            content=diff_content(self.call.change),
            locations=self.locations(),
            raw_input=self.input,
        )

    def finished(self, call: ToolCallView) -> ToolCallProgress:
        """The end of the call: its result as the model got it, or for an edit, the diff."""
        content: list[Content] = []
        result = call.result
        if result is not None and result.kind == "diff":
            content.extend(diff_content(call.change) or [])
        # The text the model got; an image (no text body) as its tool's summary line.
        shown = ""
        if result is not None:
            shown = result.body if result.kind in ("text", "error") else result.summary
        if shown and not content:
            content.append(text_content(shown))
        return ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=call.tool_use_id,
            status="completed" if call.status == "done" else "failed",
            content=content or None,
            raw_output=shown,
        )


def diff_content(change: FileDiff | None) -> list[Content] | None:
    """A file change as the editor's diff (old_text None: a new file)."""
    if change is None:
        return None
    return [
        FileEditToolCallContent(
            type="diff", path=change.path, old_text=change.old_text, new_text=change.new_text
        )
    ]


def status_update(tool_use_id: str, status: Any, **fields: Any) -> ToolCallProgress:
    return ToolCallProgress(
        session_update="tool_call_update", tool_call_id=tool_use_id, status=status, **fields
    )


def plan(todos: Sequence[Todo]) -> AgentPlanUpdate:
    """TodoWrite's list as the client's plan (Claude Code's statuses are ACP's)."""
    return AgentPlanUpdate(
        session_update="plan",
        entries=[PlanEntry(content=t.content, priority="medium", status=t.status) for t in todos],
    )


def replay(events: Iterable[EngineEvent]) -> list[SessionUpdate]:
    """A resumed conversation (the session's history, as events) as the updates a live one
    sent (session/load): the user's words, the answers, and each tool call with its result."""
    out: list[SessionUpdate] = []
    views: dict[str, ToolView] = {}
    for event in events:
        if isinstance(event, TurnStarted):
            out.append(user_chunk(event.prompt))
        elif isinstance(event, AssistantMessage):
            thought = _thinking(event.message)
            if thought.strip():
                out.append(thought_chunk(thought))
            value = message_text(event.message)
            if value.strip():
                out.append(message_chunk(value))
        elif isinstance(event, CompactionFinished):
            out.append(message_chunk("\n(conversation compacted)\n"))
        elif isinstance(event, ToolCallUpdated):
            call = event.view
            view = views.get(call.tool_use_id)
            if view is None:
                view = ToolView(call)
                views[call.tool_use_id] = view
                out.append(view.start(call.tool_use_id))
            if call.finished:
                out.append(view.finished(call))
    return out


def _thinking(message: Mapping[str, Any]) -> str:
    """The thinking blocks of a message, joined (a live turn streamed them as thoughts)."""
    content = message.get("content")
    if not isinstance(content, list):
        return ""
    return "".join(
        str(b.get("thinking", ""))
        for b in content
        if isinstance(b, Mapping) and b.get("type") == "thinking"
    )
