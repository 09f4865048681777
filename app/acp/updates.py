"""Engine events and stored messages as ACP session/update payloads.

What a tool call looks like to the client comes from what the tool declares (its class of work,
its one-line summary, its path argument), never from its name: an MCP tool or a new built-in
shows up with the right kind and title without a change here.
"""

from __future__ import annotations

import json
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

from app.engine.compact_prompt import SUMMARY_INTRO
from tools.files.common import PathArgument
from tools.files.diff import FileChange
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

_KINDS: dict[str, ToolKind] = {
    "read": "read",
    "write": "edit",
    "execute": "execute",
    "search": "search",
    "other": "other",
}


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

    def __init__(self, tool: Any, name: str, tool_input: Mapping[str, Any]) -> None:
        self.name = name
        self.input = dict(tool_input)
        self.title = name
        self.kind: ToolKind = "other"
        self.path: str | None = None
        parsed: Any = None
        if tool is not None:
            try:
                parsed = tool.parse_input(tool_input)
            except Exception:  # bad input: the call fails on its own; show what is known
                parsed = None
        if parsed is not None:
            self.title = _title(tool, parsed, name)
            self.kind = _KINDS.get(str(_safe(lambda: tool.classify(parsed), "other")), "other")
            if isinstance(tool, PathArgument):
                target = _safe(lambda: tool.permission_target(parsed), None)
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

    def finished(
        self, tool_use_id: str, result_block: Mapping[str, Any], is_error: bool, data: Any = None
    ) -> ToolCallProgress:
        """The end of the call: its result as the model got it, or for an edit, the diff."""
        content: list[Content] = []
        if isinstance(data, FileChange) and not is_error:
            content.extend(self.proposed() or [])
        shown = result_text(result_block)
        if shown and not content:
            content.append(text_content(shown))
        return ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=tool_use_id,
            status="failed" if is_error else "completed",
            content=content or None,
            raw_output=shown,
        )


def _safe(fn: Any, default: Any) -> Any:
    try:
        return fn()
    except Exception:
        return default


def _title(tool: Any, parsed: Any, name: str) -> str:
    label = str(_safe(lambda: tool.user_facing_name(parsed), name) or name)
    summary = str(_safe(lambda: tool.summary(parsed), "") or "")
    return f"{label} {summary}".strip() if summary else label


def result_text(block: Mapping[str, Any]) -> str:
    """The text of a tool_result block (images and other blocks are named, not shown)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for item in content or []:
        if isinstance(item, Mapping):
            if item.get("type") == "text":
                parts.append(str(item.get("text", "")))
            else:
                parts.append(f"[{item.get('type', 'content')}]")
    return "\n".join(parts)


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


def _blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, Mapping)]


def replay(messages: Iterable[Mapping[str, Any]], tools: Iterable[Any]) -> list[SessionUpdate]:
    """A stored conversation as the updates a live one sent (session/load): the user's words, the
    answers, the thinking, and each tool call finished with its recorded result."""
    by_name = {t.name: t for t in tools}
    messages = list(messages)
    results: dict[str, Mapping[str, Any]] = {}
    for message in messages:
        if message.get("role") == "user":
            for block in _blocks(message):
                if block.get("type") == "tool_result":
                    results[str(block.get("tool_use_id", ""))] = block
    out: list[SessionUpdate] = []
    for message in messages:
        role = message.get("role")
        for block in _blocks(message):
            kind = block.get("type")
            if kind == "text":
                value = str(block.get("text", ""))
                if role == "user" and value.startswith("<system-reminder>"):
                    continue  # lathe's own context, not what the user wrote
                if role == "user" and value.startswith(SUMMARY_INTRO):
                    # A compaction boundary: what is above it was summarised for the model.
                    out.append(message_chunk("\n(conversation compacted)\n"))
                    continue
                if value.strip():
                    out.append(user_chunk(value) if role == "user" else message_chunk(value))
            elif kind == "thinking" and role == "assistant":
                out.append(thought_chunk(str(block.get("thinking", ""))))
            elif kind == "tool_use":
                tool_id = str(block.get("id", ""))
                raw = block.get("input")
                name = str(block.get("name", ""))
                view = ToolView(by_name.get(name), name, raw if isinstance(raw, Mapping) else {})
                out.append(view.start(tool_id))
                result = results.get(tool_id)
                if result is not None:
                    out.append(view.finished(tool_id, result, bool(result.get("is_error"))))
    return out


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
