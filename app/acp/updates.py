"""Engine events and stored messages as ACP session/update payloads.

What a tool call looks like to the client comes from what the tool declares (its class of work,
its one-line summary, its path argument), never from its name: an MCP tool or a new built-in
shows up with the right kind and title without a change here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

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
    ToolCallUpdated,
    ToolCallView,
    TurnStarted,
    message_text,
)
from tools.base import Tool
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


def _kind(tool: Tool[Any]) -> ToolKind:
    """The ACP kind from the tool's declarations (never its name): what it may touch."""
    kind = tool.permission_kind
    if kind == "shell":
        return "execute"
    if kind == "path_write":
        return "edit"
    if kind == "url":
        return "fetch"
    if kind == "path_read":
        return "read" if tool.path_reach == "path" else "search"
    return "other"


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
    """How one call is shown: title, kind, the files it touches and the change it proposes."""

    def __init__(
        self, tool: Tool[Any] | None, name: str, tool_input: Mapping[str, Any], summary: str = ""
    ) -> None:
        self.name = name
        self.input = dict(tool_input)
        # The engine's summary, for a tool this front end does not know (an MCP server's).
        self.title = f"{name} {summary}".strip()
        self.kind: ToolKind = "other"
        self.path: str | None = None
        parsed: Any = None
        if tool is not None:
            try:
                parsed = tool.parse_input(tool_input)
            except Exception:  # bad input: the call fails on its own; show what is known
                parsed = None
        if tool is not None and parsed is not None:
            self.title = _title(tool, parsed, name)
            self.kind = _kind(tool)
            if tool.permission_kind in ("path_read", "path_write"):
                target = _safe(lambda: tool.permission_subject(parsed), None)
                self.path = target if isinstance(target, str) and target else None

    def locations(self) -> list[ToolCallLocation] | None:
        if self.path is None:
            return None
        line = self.input.get("offset")
        return [ToolCallLocation(path=self.path, line=line if isinstance(line, int) else None)]

    def proposed(self) -> list[Content] | None:
        """The change an edit proposes, as a diff the editor can show before it is approved."""
        if self.path is None or self.kind != "edit":
            return None
        old, new = self.input.get("old_string"), self.input.get("new_string")
        if isinstance(old, str) and isinstance(new, str):
            return [
                FileEditToolCallContent(type="diff", path=self.path, old_text=old, new_text=new)
            ]
        content = self.input.get("content")
        if isinstance(content, str):
            return [FileEditToolCallContent(type="diff", path=self.path, new_text=content)]
        return None

    def start(self, tool_use_id: str) -> ToolCallStart:
        return ToolCallStart(
            session_update="tool_call",
            tool_call_id=tool_use_id,
            title=self.title,
            kind=self.kind,
            status="pending",
            content=self.proposed(),
            locations=self.locations(),
            raw_input=self.input,
        )

    def finished(self, call: ToolCallView) -> ToolCallProgress:
        """The end of the call: its result as the model got it, or for an edit, the diff."""
        content: list[Content] = []
        result = call.result
        if result is not None and result.kind == "diff":
            content.extend(self.proposed() or [])
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


T = TypeVar("T")


def _safe(fn: Callable[[], T], default: T) -> T:
    try:
        return fn()
    except Exception:
        return default


def _title(tool: Tool[Any], parsed: Any, name: str) -> str:
    # `parsed`: the tool's own input model (each tool has its own type).
    label = str(_safe(lambda: tool.user_facing_name(parsed), name) or name)
    summary = str(_safe(lambda: tool.summary(parsed), "") or "")
    return f"{label} {summary}".strip() if summary else label


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


def replay(events: Iterable[EngineEvent], tools: Mapping[str, Any]) -> list[SessionUpdate]:
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
                view = ToolView(tools.get(call.name), call.name, call.input, call.title)
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
