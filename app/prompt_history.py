"""The prompts typed in this project's earlier sessions, for the prompt's history (Up, and the
Tab popup), as Claude Code recalls them: newest first there, each once, never another project's.

Read from the newest transcripts only, and only their ends (a prompt history wants the recent
prompts, and a long session's file can be large): at most `limit` prompts, from at most
`max_files` files, `tail_bytes` of each. The TUI calls this off its loop, after the first frame.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from app.transcript import first_prompt_of, project_transcripts_dir

PAST_PROMPTS = 100
MAX_FILES = 30
TAIL_BYTES = 1 << 20


def past_prompts(
    project_dir: str | Path,
    limit: int = PAST_PROMPTS,
    max_files: int = MAX_FILES,
    tail_bytes: int = TAIL_BYTES,
) -> list[str]:
    """The project's earlier prompts, oldest first (the order they were typed), each once (its
    newest time), the newest `limit` of them."""
    project = os.path.realpath(str(project_dir))
    folder = project_transcripts_dir(project)
    try:
        files = [p for p in folder.glob("*.jsonl") if p.is_file()]
        files.sort(key=lambda p: p.stat().st_mtime_ns, reverse=True)
    except OSError:
        return []
    per_file: list[list[str]] = []  # newest file first
    found = 0
    for path in files[:max_files]:
        prompts = _prompts_in(path, project, tail_bytes)
        per_file.append(prompts)
        found += len(prompts)
        if found >= limit:
            break
    ordered = [p for prompts in reversed(per_file) for p in prompts]
    newest_first: list[str] = []
    seen: set[str] = set()
    for prompt in reversed(ordered):
        if prompt not in seen:
            seen.add(prompt)
            newest_first.append(prompt)
            if len(newest_first) >= limit:
                break
    return newest_first[::-1]


def _prompts_in(path: Path, project: str, tail_bytes: int) -> list[str]:
    try:
        with path.open("rb") as f:
            size = f.seek(0, os.SEEK_END)
            start = max(0, size - tail_bytes)
            f.seek(start)
            data = f.read(tail_bytes)
    except OSError:
        return []
    if start > 0:
        data = data.partition(b"\n")[2]  # the first line is cut: not a whole record
    out: list[str] = []
    for line in data.splitlines():
        prompt = _prompt_of(line, project)
        if prompt:
            out.append(prompt)
    return out


def _prompt_of(line: bytes, project: str) -> str:
    """What the person typed on this transcript line ("" for anything else: results, a
    subagent's prompt, a compaction summary, a reminder, a line of another folder)."""
    try:
        record: Any = json.loads(line)
    except ValueError:
        return ""
    if not isinstance(record, dict) or record.get("type") != "user":
        return ""
    if record.get("isSidechain") or record.get("isCompactSummary") or record.get("isMeta"):
        return ""
    cwd = record.get("cwd")
    # Slugs of two folders can be the same: the line's own folder says whose it is.
    if not isinstance(cwd, str) or not (cwd == project or cwd.startswith(project + os.sep)):
        return ""
    message = record.get("message")
    if not isinstance(message, dict):
        return ""
    return first_prompt_of([message])
