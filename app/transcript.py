"""Sessions on disk: one append-only JSONL file per session.

`$LATHE_STATE_DIR/projects/<slug of the project path>/<session_id>.jsonl`. Each line is a JSON
object; each message is flushed and fsynced as it is completed, so a crash loses at most the line
being written. Loading keeps every whole line, skips a cut or garbled one, and repairs the
conversation (a tool_use left without its tool_result gets a synthetic error result) so the next
API request is valid.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.config.paths import state_dir

REPAIRED_RESULT = (
    "<tool_use_error>The session ended before this tool returned a result (lathe was stopped). "
    "Its effects, if any, are unknown: check before relying on them.</tool_use_error>"
)


def project_slug(project_dir: str | Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(Path(project_dir).resolve()))


def project_transcripts_dir(project_dir: str | Path) -> Path:
    return state_dir() / "projects" / project_slug(project_dir)


def new_session_id() -> str:
    return str(uuid.uuid4())


class TranscriptWriter:
    """Appends lines to one session's file, durably."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh: Any = None

    def _open(self) -> Any:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for appends
        return self._fh

    def append(self, record: Mapping[str, Any]) -> None:
        fh = self._open()
        fh.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        fh.flush()
        os.fsync(fh.fileno())

    def append_message(self, session_id: str, message: Mapping[str, Any]) -> None:
        self.append(
            {
                "type": "message",
                "session_id": session_id,
                "timestamp": time.time(),
                "message": dict(message),
            }
        )

    def append_clear(self, session_id: str) -> None:
        """/clear: the file keeps what was said, and loading starts again after this line."""
        self.append({"type": "clear", "session_id": session_id, "timestamp": time.time()})

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


@dataclass
class LoadedTranscript:
    session_id: str
    path: Path
    messages: list[dict[str, Any]]
    meta: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    repaired: int = 0
    # The messages before the last compaction (after the last /clear), for browsing only.
    earlier: list[dict[str, Any]] = field(default_factory=list)


class TranscriptError(Exception):
    pass


def load_transcript(path: Path) -> LoadedTranscript:
    """Read a transcript up to its last whole line and repair it for the next request."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TranscriptError(f"cannot read transcript {path}: {exc.strerror}") from None
    messages: list[dict[str, Any]] = []
    earlier: list[dict[str, Any]] = []
    meta: dict[str, Any] = {}
    warnings: list[str] = []
    lines = raw.split(b"\n")
    if lines and lines[-1] != b"":
        warnings.append(f"{path}: the last line was cut short (a crash?); it was dropped")
        lines = lines[:-1]
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            warnings.append(f"{path}:{number}: not valid JSON; skipped")
            continue
        if not isinstance(record, dict):
            warnings.append(f"{path}:{number}: not a JSON object; skipped")
            continue
        if record.get("type") == "session":
            meta.update(record)
        elif record.get("type") == "clear":
            # /clear: the model forgot everything before this line, so must a resume.
            messages = []
            earlier = []
        elif record.get("type") == "compact" and isinstance(record.get("messages"), list):
            # A compaction: the conversation goes on from the summary this line holds.
            earlier.extend(messages)
            messages = [m for m in record["messages"] if _valid_message(m)]
        elif record.get("type") == "message" and _valid_message(record.get("message")):
            messages.append(record["message"])
        elif record.get("type") == "message":
            warnings.append(f"{path}:{number}: a message without role or content; skipped")
    repaired_messages, repaired = repair_messages(messages)
    return LoadedTranscript(
        session_id=str(meta.get("session_id") or path.stem),
        path=path,
        messages=repaired_messages,
        meta=meta,
        warnings=warnings,
        repaired=repaired,
        earlier=earlier,
    )


def _valid_message(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and message.get("role") in ("user", "assistant")
        and isinstance(message.get("content"), str | list)
    )


RESUMED_START = "(The start of this conversation could not be read from the transcript.)"


def _tool_use_ids(message: dict[str, Any] | None) -> set[Any]:
    if (
        message is None
        or message["role"] != "assistant"
        or not isinstance(message["content"], list)
    ):
        return set()
    return {
        b.get("id")
        for b in message["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use"
    }


def _drop_orphans(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """A skipped (garbled) line can take an assistant message with it, leaving the tool_results
    that answered it orphaned, or leave the conversation opening with the assistant: the API
    refuses both with a 400, so the orphans go and a placeholder prompt opens the conversation."""
    out: list[dict[str, Any]] = []
    dropped = 0
    for message in messages:
        if message["role"] == "user" and isinstance(message["content"], list):
            known = _tool_use_ids(out[-1] if out else None)
            seen: set[Any] = set()
            content = []
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    tid = block.get("tool_use_id")
                    if tid not in known or tid in seen:
                        dropped += 1
                        continue
                    seen.add(tid)
                content.append(block)
            if not content:
                continue
            if len(content) != len(message["content"]):
                message = {**message, "content": content}
        if not out and message["role"] != "user":
            out.append({"role": "user", "content": [{"type": "text", "text": RESUMED_START}]})
            dropped += 1
        out.append(message)
    return out, dropped


def repair_messages(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Give every tool_use a tool_result in the next user message; drop orphan tool_results."""
    messages, repaired = _drop_orphans(messages)
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        out.append(message)
        if message["role"] != "assistant" or not isinstance(message["content"], list):
            i += 1
            continue
        ids = [
            b.get("id")
            for b in message["content"]
            if isinstance(b, dict) and b.get("type") == "tool_use"
        ]
        if not ids:
            i += 1
            continue
        following = messages[i + 1] if i + 1 < len(messages) else None
        answered: set[Any] = set()
        if (
            following is not None
            and following["role"] == "user"
            and isinstance(following["content"], list)
        ):
            answered = {
                b.get("tool_use_id")
                for b in following["content"]
                if isinstance(b, dict) and b.get("type") == "tool_result"
            }
        missing = [tid for tid in ids if tid not in answered]
        if missing:
            repaired += len(missing)
            synthetic = [
                {
                    "type": "tool_result",
                    "tool_use_id": tid,
                    "content": REPAIRED_RESULT,
                    "is_error": True,
                }
                for tid in missing
            ]
            if following is not None and following["role"] == "user":
                content = (
                    following["content"]
                    if isinstance(following["content"], list)
                    else [{"type": "text", "text": following["content"]}]
                )
                results = [
                    b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
                ]
                others = [
                    b
                    for b in content
                    if not (isinstance(b, dict) and b.get("type") == "tool_result")
                ]
                out.append({"role": "user", "content": results + synthetic + others})
                i += 2
                continue
            out.append({"role": "user", "content": synthetic})
        i += 1
    return out, repaired


def find_latest(project_dir: str | Path) -> Path | None:
    folder = project_transcripts_dir(project_dir)
    files = [p for p in folder.glob("*.jsonl") if p.is_file()]
    if not files:
        return None
    return max(files, key=lambda p: p.stat().st_mtime_ns)


def find_session(session_id: str, project_dir: str | Path) -> Path | None:
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", session_id):
        return None
    local = project_transcripts_dir(project_dir) / f"{session_id}.jsonl"
    if local.is_file():
        return local
    for candidate in (state_dir() / "projects").glob(f"*/{session_id}.jsonl"):
        return candidate
    return None


@dataclass(frozen=True)
class SessionSummary:
    session_id: str
    path: Path
    modified: float
    first_prompt: str
    messages: int


def list_sessions(project_dir: str | Path, limit: int = 50) -> list[SessionSummary]:
    """Sessions of a project, newest first, for the resume picker."""
    folder = project_transcripts_dir(project_dir)
    files = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)[:limit]
    out: list[SessionSummary] = []
    for path in files:
        try:
            loaded = load_transcript(path)
        except TranscriptError:
            continue
        first = ""
        for message in loaded.messages:
            if message["role"] == "user":
                content = message["content"]
                if isinstance(content, str):
                    first = content
                else:
                    first = next(
                        (b.get("text", "") for b in content if b.get("type") == "text"), ""
                    )
                if first:
                    break
        out.append(
            SessionSummary(
                loaded.session_id, path, path.stat().st_mtime, first[:200], len(loaded.messages)
            )
        )
    return out
