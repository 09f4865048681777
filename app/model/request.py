"""Request parameters: the system prompt, the tool list, the conversation and cache breakpoints.

Breakpoints (the API allows at most 4): the end of the system prompt, the last built-in tool (so
MCP and deferred tools after it can change without invalidating the built-ins' cache), and the
newest user turn's last block (so the next request reads the whole conversation from cache).
"""

from __future__ import annotations

import datetime as _dt
import platform as _platform
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from app.memory.files import (
    LATHE_NAMES as MEMORY_FILE_NAMES,
)
from app.memory.files import (
    MAX_MEMORY_CHARS,
    MemoryFile,
    load_memory,
    memory_block_text,
)
from app.model.validate import MAX_CACHE_BREAKPOINTS, count_cache_breakpoints

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
__all__ = ["MAX_MEMORY_CHARS", "MEMORY_FILE_NAMES", "MemoryFile"]

DEFAULT_MAX_TOKENS = 16_000

INTRO = (
    "You are lathe, an interactive coding agent running in the user's terminal. You help with "
    "software engineering tasks in the user's repository using the tools you are given. Be "
    "concise and direct; read files before changing them; prefer several independent tool calls "
    "in one turn when they do not depend on each other."
)


def find_git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def environment_text(cwd: Path, *, today: _dt.date | None = None) -> str:
    day = today or _dt.date.today()
    is_git = find_git_root(cwd) is not None
    return (
        "<env>\n"
        f"Working directory: {cwd}\n"
        f"Is directory a git repo: {'Yes' if is_git else 'No'}\n"
        f"Platform: {_platform.system().lower()}\n"
        f"OS Version: {_platform.system()} {_platform.release()}\n"
        f"Today's date: {day.isoformat()}\n"
        "</env>"
    )


def build_system(
    cwd: Path,
    *,
    project_root: Path | None = None,
    config_dir: Path | None = None,
    intro: str = INTRO,
    today: _dt.date | None = None,
    skills_text: str = "",
    memory_refuse: Callable[[Path], str] | None = None,
    extra_dirs: Sequence[Path] = (),
    memory_confine: bool = False,
    memory_sources: Collection[str] | None = None,
) -> list[dict[str, Any]]:
    """System prompt blocks; the last one carries the system breakpoint. `memory_refuse` says
    why a memory file may not be read (the session's Read deny rules), or "". `memory_confine`
    (an untrusted folder): the project's memory files import nothing from outside it."""
    blocks: list[dict[str, Any]] = [
        {"type": "text", "text": f"{intro}\n\n{environment_text(cwd, today=today)}"}
    ]
    root = project_root or find_git_root(cwd) or cwd
    # Memory goes in the system prompt, not (as in Claude Code) a first-message reminder: the
    # system prompt is cached at its breakpoint, stays the same for the whole session, and is
    # rebuilt from disk on compaction, so edits to memory files take effect there.
    confine = root if memory_confine else None
    memories = load_memory(
        cwd,
        root,
        config_dir,
        refuse=memory_refuse,
        extra_dirs=extra_dirs,
        confine_to=confine,
        sources=memory_sources,
    ).files
    if memories:
        blocks.append({"type": "text", "text": memory_block_text(memories)})
    if skills_text:
        # Claude Code 2.1 sends the skill listing as a system turn at the conversation's start
        # (measured); the Messages API has no such turn, so it goes here, cached like memory.
        blocks.append({"type": "text", "text": skills_text})
    blocks[-1]["cache_control"] = dict(EPHEMERAL)
    return blocks


def build_tools(
    tools: Sequence[Mapping[str, Any]], last_builtin: int | None
) -> list[dict[str, Any]]:
    """Copies of the tool definitions; the breakpoint goes on `tools[last_builtin]`."""
    out = [dict(t) for t in tools]
    for t in out:
        t.pop("cache_control", None)
    if last_builtin is not None and 0 <= last_builtin < len(out):
        out[last_builtin]["cache_control"] = dict(EPHEMERAL)
    return out


def _strip_cache_control(block: Any) -> Any:
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def with_user_breakpoint(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The conversation with a breakpoint on the newest user message's last block.

    Only the messages that change are copied; older breakpoints (left by earlier requests, or
    loaded from a transcript) are removed so the total never grows past the limit.
    """
    out: list[dict[str, Any]] = []
    newest_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    for i, message in enumerate(messages):
        content = message.get("content")
        if i == newest_user:
            blocks = (
                [{"type": "text", "text": content}]
                if isinstance(content, str)
                else [_strip_cache_control(b) for b in (content or [])]
            )
            if blocks:
                blocks[-1] = {**blocks[-1], "cache_control": dict(EPHEMERAL)}
            out.append({**message, "content": blocks})
        elif isinstance(content, list) and any(
            isinstance(b, dict) and "cache_control" in b for b in content
        ):
            out.append({**message, "content": [_strip_cache_control(b) for b in content]})
        else:
            out.append(dict(message))
    return out


def build_request(
    *,
    model: str,
    system: list[dict[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    last_builtin: int | None,
    messages: Sequence[Mapping[str, Any]],
    max_tokens: int = DEFAULT_MAX_TOKENS,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Keyword arguments for `client.messages.stream(**params)` (or `.create`)."""
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "system": system,
        "messages": with_user_breakpoint(messages),
    }
    if tools:
        params["tools"] = build_tools(tools, last_builtin)
    if extra:
        params.update(extra)
    found = count_cache_breakpoints(params)
    if found > MAX_CACHE_BREAKPOINTS:
        raise ValueError(f"request would carry {found} cache breakpoints (limit 4)")
    return params
