"""What must survive a compaction besides the summary: the todo list and the files the work
depends on (the most recently read or changed ones, re-read from disk, within a token budget).

A re-read is a Read made now, through the whole tool pipeline with nobody to ask: only files whose
Read, Edit or Write succeeded are candidates, the deny rules and hooks in force now apply, a file
outside the working folders (an "ask") is skipped, and Read's own limits hold. A Read is re-read
only as far as it read (its offset and limit). Memory files live in the system prompt, which
compaction rebuilds from disk; they need no copy.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.engine.context import CHARS_PER_TOKEN
from app.execution.pipeline import run_tool_use
from tools.base import Tool
from tools.todo_write import current_todos

if TYPE_CHECKING:
    from app.engine.session import Session

# Which tool a tool_use of the conversation names (the session's lookup, aliases included).
ToolFinder = Callable[[str], Tool[Any] | None]
MAX_FILES = 5
PER_FILE_TOKENS = 10_000
# Below this many tokens a re-read is not worth its framing.
MIN_FILE_TOKENS = 50


@dataclass(frozen=True)
class RecentFile:
    path: Path
    # The newest successful Read's window (None: from the start / Read's default length).
    offset: int | None = None
    limit: int | None = None


def _outcomes(messages: Sequence[Mapping[str, Any]]) -> dict[str, bool]:
    """tool_use id -> whether its tool_result says it succeeded."""
    out: dict[str, bool] = {}
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                out[str(block.get("tool_use_id"))] = not block.get("is_error")
    return out


def _window(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def recent_files(
    messages: Sequence[Mapping[str, Any]], cwd: str, limit: int, find: ToolFinder
) -> list[RecentFile]:
    """The files of the newest successful calls of tools that declare a `file_view` (Read, Edit,
    Write, NotebookEdit), newest first, each once. A call that was denied, failed or got no
    result is not evidence the file may be shown."""
    succeeded = _outcomes(messages)
    seen: dict[Path, RecentFile] = {}
    for message in reversed(messages):
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        for block in reversed(message["content"]):
            if not isinstance(block, Mapping) or block.get("type") != "tool_use":
                continue
            tool_input = block.get("input")
            tool = find(str(block.get("name", "")))
            if tool is None or tool.file_view == "none" or not isinstance(tool_input, Mapping):
                continue
            if not succeeded.get(str(block.get("id")), False):
                continue
            raw = tool_input.get(tool.subject_field or "")
            if not isinstance(raw, str) or not raw:
                continue
            path = Path(os.path.expanduser(raw))
            path = path if path.is_absolute() else Path(cwd) / path
            if path in seen:
                continue
            if tool.file_view == "read":
                offset, size = _window(tool_input.get("offset")), _window(tool_input.get("limit"))
                seen[path] = RecentFile(path, offset, size)
            else:
                seen[path] = RecentFile(path)
            if len(seen) >= limit:
                return list(seen.values())
    return list(seen.values())


def file_reader(tools: Sequence[Tool[Any]]) -> Tool[Any] | None:
    """The session's tool that reads a file's text (declared `file_view = "read"`: Read)."""
    return next((t for t in tools if t.file_view == "read" and t.subject_field), None)


async def _read_now(session: Session, file: RecentFile, n: int) -> str | None:
    """The text a Read of `file` gives now, or None when it would not succeed without asking."""
    reader = file_reader(session.pool.tools)
    if reader is None:
        return None  # the session offers no reader: nothing is re-read
    tool_input: dict[str, Any] = {reader.subject_field or "": str(file.path)}
    if file.offset is not None:
        tool_input["offset"] = file.offset
    if file.limit is not None:
        tool_input["limit"] = file.limit
    block = {
        "type": "tool_use",
        "id": f"compact_reread_{n}",
        "name": reader.name,
        "input": tool_input,
    }
    # No prompter: an "ask" (outside the working folders, an ask rule) is refused.
    deps = replace(session.deps, prompter=None)
    outcome = await run_tool_use(block, {}, session.context, deps, lambda _progress: None)
    if outcome.is_error or not outcome.ran:
        return None
    # The text the model would get; an image or a document (content blocks) is not re-read.
    content = reader.to_result_content(outcome.data)
    return content if isinstance(content, str) and content.strip() else None


async def reread_files(session: Session, files: Sequence[RecentFile], budget: int) -> list[str]:
    """Each file as Read shows it now, until `budget` tokens are spent; a file that does not fit
    whole is cut at a line (the model is told to Read the rest)."""
    texts: list[str] = []
    left = budget * CHARS_PER_TOKEN
    for n, file in enumerate(files):
        cap = min(left - 200, PER_FILE_TOKENS * CHARS_PER_TOKEN)
        if cap < MIN_FILE_TOKENS * CHARS_PER_TOKEN:
            break
        text = await _read_now(session, file, n)
        if text is None:
            continue
        note = ""
        if len(text) > cap:
            text = text[: text.rfind("\n", 0, cap)] if "\n" in text[:cap] else text[:cap]
            note = " (cut to fit the budget: Read the rest if you need it)"
        texts.append(
            f"<system-reminder>\nThe file {file.path}, re-read from disk after the compaction"
            f"{note}:\n{text}\n</system-reminder>"
        )
        left -= len(text) + 200
    return texts


def todo_text(context: Any) -> str | None:
    todos = current_todos(context)
    if not todos:
        return None
    lines = [f"- [{t.status}] {t.content}" for t in todos]
    return (
        "<system-reminder>\nThe todo list (TodoWrite) at the time of the compaction; it is still "
        "current:\n" + "\n".join(lines) + "\n</system-reminder>"
    )
