"""What must survive a compaction besides the summary: the todo list and the files the work
depends on (the most recently read or changed ones, re-read from disk, within a token budget).

Memory files live in the system prompt, which compaction rebuilds from disk; they need no copy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from app.engine.context import CHARS_PER_TOKEN
from tools.files.lines import format_numbered
from tools.todo_write import current_todos

FILE_TOOLS = ("Read", "Edit", "Write", "MultiEdit", "NotebookEdit")
MAX_FILES = 5
PER_FILE_TOKENS = 10_000


def recent_files(messages: Sequence[Mapping[str, Any]], cwd: str, limit: int) -> list[Path]:
    """The files of the newest Read/Edit/Write calls, newest first, each once."""
    seen: list[Path] = []
    for message in reversed(messages):
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        for block in reversed(message["content"]):
            if not isinstance(block, Mapping) or block.get("type") != "tool_use":
                continue
            tool_input = block.get("input")
            if block.get("name") not in FILE_TOOLS or not isinstance(tool_input, Mapping):
                continue
            raw = tool_input.get("file_path") or tool_input.get("notebook_path")
            if not isinstance(raw, str) or not raw:
                continue
            path = Path(os.path.expanduser(raw))
            path = path if path.is_absolute() else Path(cwd) / path
            if path not in seen:
                seen.append(path)
            if len(seen) >= limit:
                return seen
    return seen


def reread_files(paths: Sequence[Path], budget_tokens: int) -> list[str]:
    """Each file as it is on disk now, numbered like Read's output, until the budget is spent.
    Files gone, unreadable or binary are skipped: their state is in the summary."""
    texts: list[str] = []
    left = budget_tokens * CHARS_PER_TOKEN
    for path in paths:
        if left <= 200:
            break
        try:
            if not path.is_file():
                continue
            data = path.read_bytes()[: min(left, PER_FILE_TOKENS * CHARS_PER_TOKEN) + 1]
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue
        text = data.decode("utf-8", errors="replace")
        cap = min(left, PER_FILE_TOKENS * CHARS_PER_TOKEN)
        cut = len(text) > cap
        text = text[:cap]
        lines = text.splitlines()
        if cut and lines:
            lines = lines[:-1]  # the last line may be cut mid-way
        body = format_numbered(lines, 1)
        note = " (cut to fit the budget: Read the rest if you need it)" if cut else ""
        texts.append(
            f"<system-reminder>\nThe file {path}, re-read from disk after the compaction{note}:\n"
            f"{body}\n</system-reminder>"
        )
        left -= len(body) + 200
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
