"""Sessions on disk: one append-only JSONL file per session.

`$LATHE_STATE_DIR/projects/<slug of the project path>/<session_id>.jsonl`. Each line is a JSON
object; each message is flushed and fsynced as it is completed, so a crash loses at most the line
being written. Before anything is appended to an existing file, a torn last line is cut off on
disk (`truncate_torn_tail`): appending onto it would glue the next line to the fragment. A write
that fails midway (a full disk) is cut back the same way at once. Loading keeps every readable
line and repairs the conversation so the next API request is valid (app/transcript_repair.py).
Only one process writes a session at a time (app/session_lock.py).
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from app import __version__, debuglog, jsonlimits
from app.config.paths import state_dir
from app.session_lock import SessionLock
from app.transcript_repair import (
    MAX_LINE_BYTES,
    REPAIRED_RESULT,
    RESUMED_START,
    conversation_of,
    parse_lines,
    repair_messages,
)
from tools.base import HookShaped

__all__ = ["REPAIRED_RESULT", "RESUMED_START", "repair_messages"]


def project_slug(project_dir: str | Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(Path(project_dir).resolve()))


def private_dirs(folder: Path) -> None:
    """`folder` and the parents it needs, made 0700; an existing folder is left as it is unless
    it is lathe's own transcript folder (`.../projects/<slug>`, its sessions' folders)."""
    missing: list[Path] = []
    current = folder
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    for made in missing:
        try:
            os.chmod(made, 0o700)
        except OSError:
            pass
    for mine in (folder, *folder.parents):
        if mine.parent.name == "projects" or mine.name == "subagents":
            try:
                os.chmod(mine, 0o700)
            except OSError:
                pass


def project_transcripts_dir(project_dir: str | Path) -> Path:
    return state_dir() / "projects" / project_slug(project_dir)


def new_session_id() -> str:
    return str(uuid.uuid4())


def truncate_torn_tail(path: Path) -> int:
    """Cut a last line that has no newline (a crash mid-write) off the file, durably; returns the
    bytes removed. Only the session's writer (holding its lock) may call this."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return 0
    try:
        size = os.fstat(fd).st_size
        keep = size
        chunk = 1 << 16
        while keep > 0:
            start = max(0, keep - chunk)
            data = os.pread(fd, keep - start, start)
            newline = data.rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            keep = start
        if keep == size:
            return 0
        if size - keep <= MAX_LINE_BYTES and _whole_record(os.pread(fd, size - keep, keep)):
            # Only the newline is missing (the kill fell between the two): the line is kept.
            os.pwrite(fd, b"\n", size)
            os.fsync(fd)
            return 0
        os.ftruncate(fd, keep)
        os.fsync(fd)
        return size - keep
    finally:
        os.close(fd)


def _whole_record(tail: bytes) -> bool:
    try:
        return isinstance(jsonlimits.loads(tail, "transcript tail"), dict)
    except (ValueError, RecursionError):
        return False


# `toolUseResult` beside a tool_result repeats the tool's data; past this it is left out.
MAX_TOOL_USE_RESULT_CHARS = 100_000


def iso_now() -> str:
    """Claude Code's timestamp: UTC, milliseconds, `Z` (`2026-12-01T12:29:42.992Z`)."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def git_branch(folder: str | Path) -> str:
    """The checked-out branch as `.git/HEAD` names it ("" outside git or detached), read
    without running git: the transcript's `gitBranch`."""
    for parent in (Path(folder), *Path(folder).parents):
        head = parent / ".git" / "HEAD"
        try:
            text = head.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            if (parent / ".git").exists():
                return ""  # a worktree's `.git` file, or unreadable: no branch claimed
            continue
        prefix = "ref: refs/heads/"
        return text[len(prefix) :] if text.startswith(prefix) else ""
    return ""


class RecordedCall(Protocol):
    """What the transcript reads of a finished call (the engine's CallOutcome)."""

    @property
    def result_block(self) -> Mapping[str, Any]: ...
    @property
    def is_error(self) -> bool: ...
    @property
    def data(self) -> Any: ...


def tool_use_result(outcome: RecordedCall) -> Any:
    """A tool call's `toolUseResult`, as Claude Code writes it beside the tool_result: the
    tool's data (Bash in its hook shape, `{stdout, stderr, interrupted, ...}`), or
    `Error: TEXT` for a call that failed or was refused."""
    from pydantic_core import to_jsonable_python

    block = outcome.result_block
    if outcome.is_error:
        content = block.get("content", "")
        if isinstance(content, list):
            content = "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
        return f"Error: {content}"
    data = outcome.data
    if isinstance(data, HookShaped):
        try:
            data = data.hook_response()
        except Exception as exc:  # a broken shape costs the line nothing but this field's shape
            debuglog.record("engine", f"{type(data).__name__}.hook_response raised", exc)
    value = to_jsonable_python(data, fallback=str)
    size = len(json.dumps(value, ensure_ascii=False))
    if size <= MAX_TOOL_USE_RESULT_CHARS:
        return value
    # A large output (a spilled Bash log, an image) is already in the tool_result, budgeted:
    # the line must not carry it twice, unbudgeted.
    content = block.get("content", "")
    if isinstance(content, str) and len(content) <= MAX_TOOL_USE_RESULT_CHARS:
        return content
    return f"[{size} characters, not repeated here: see the tool_result]"


class TranscriptWriter:
    """Appends lines to one session's file, durably, in Claude Code's shape: each message a
    `user` or `assistant` line with `uuid`, the `parentUuid` of the line before, `sessionId`,
    `timestamp`, `cwd`, `version`, `gitBranch`, `isSidechain` and `userType`, so Claude Code's
    readers (and Stop hooks that `select(.type=="assistant")`) read it, and a reader can find
    duplicates and restore the order."""

    def __init__(
        self,
        path: Path,
        last_uuid: str | None = None,
        lock: SessionLock | None = None,
        *,
        cwd: str = "",
        git_branch: str = "",
        is_sidechain: bool = False,
    ) -> None:
        self.path = path
        self.last_uuid = last_uuid
        self.lock = lock  # released by close()
        self.failure: str | None = None  # the last write that could not be kept
        # Lines lost over the writer's life and the first reason: a run that could not keep its
        # transcript (a full disk) must not end as a success, even if a later write got through.
        self.lost = 0
        self.first_loss: str | None = None
        self.cwd = cwd or os.getcwd()
        self.git_branch = git_branch
        self.is_sidechain = is_sidechain
        self._last_assistant: str | None = None
        self._fh: Any = None
        # The session's start line, held until the first line after it (start_when_written).
        self._pending_start: tuple[str, str, dict[str, Any]] | None = None

    def start_when_written(self, session_id: str, content: str, **extra: Any) -> None:
        """The `session_start` line, written just before the first line that follows it: a
        session in which nothing was said leaves no file (nor an empty entry in the resume
        picker). Until then `path` does not exist."""
        self._pending_start = (session_id, content, extra)

    def _write_pending_start(self) -> None:
        pending, self._pending_start = self._pending_start, None
        if pending is not None:
            session_id, content, extra = pending
            self.append_system(session_id, "session_start", content, **extra)

    def _open(self) -> Any:
        if self._fh is None:
            # A transcript holds everything said and read in the session: the user's alone
            # (0600 in 0700 folders, as Claude Code keeps them), whatever the umask.
            private_dirs(self.path.parent)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                os.fchmod(fd, 0o600)
            except OSError:
                pass  # a file system without modes (a FAT mount): nothing to tighten
            self._fh = os.fdopen(fd, "ab")
        return self._fh

    def append(self, record: Mapping[str, Any]) -> bool:
        """Write one line; False (and `failure` set) if it could not be kept, in which case the
        file is cut back to its last whole line so the next append starts clean."""
        data = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode(
            "utf-8", "surrogatepass"
        )
        try:
            fh = self._open()
            offset = fh.seek(0, os.SEEK_END)
        except OSError as exc:
            return self._lose(exc)
        try:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        except OSError as exc:
            self._cut_back(offset)
            return self._lose(exc)
        self.failure = None
        return True

    def _lose(self, exc: OSError) -> bool:
        self.failure = f"cannot write transcript {self.path}: {exc.strerror or exc}"
        self.lost += 1
        if self.first_loss is None:
            self.first_loss = self.failure
        return False

    def _cut_back(self, offset: int) -> None:
        fh, self._fh = self._fh, None
        try:
            fh.close()
        except OSError:
            pass  # the buffered part that could not be written is what is being dropped
        try:
            os.truncate(self.path, offset)
        except OSError:
            pass  # the next load's truncate_torn_tail removes it

    def _chained(self, session_id: str, kind: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        """A line in Claude Code's shape, chained after the last one (its uuid not yet kept)."""
        return {
            "parentUuid": self.last_uuid,
            "isSidechain": self.is_sidechain,
            "type": kind,
            **fields,
            "uuid": str(uuid.uuid4()),
            "timestamp": iso_now(),
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": session_id,
            "version": __version__,
            "gitBranch": self.git_branch,
        }

    def _append_chained(self, record: dict[str, Any]) -> bool:
        kept = self.append(record)
        if kept:
            self.last_uuid = record["uuid"]
            if record["type"] == "assistant":
                self._last_assistant = record["uuid"]
        return kept

    def append_message(
        self,
        session_id: str,
        message: Mapping[str, Any],
        tool_use_result: Any = None,
        **extra: Any,
    ) -> bool:
        """One message as a `user` or `assistant` line. A user message of tool results carries
        `toolUseResult` (a list, in tool_use order, when the message holds several results)
        and the uuid of the assistant line it answers."""
        self._write_pending_start()
        fields: dict[str, Any] = {"message": dict(message), **extra}
        if tool_use_result is not None:
            fields["toolUseResult"] = tool_use_result
            if self._last_assistant is not None:
                fields["sourceToolAssistantUUID"] = self._last_assistant
        role = message.get("role")
        kind = role if role in ("user", "assistant") else "user"
        return self._append_chained(self._chained(session_id, kind, fields))

    def append_system(self, session_id: str, subtype: str, content: str, **extra: Any) -> bool:
        """A `system` line (the session's start, /clear), chained like the messages."""
        self._write_pending_start()
        fields = {"subtype": subtype, "content": content, "isMeta": False, "level": "info"}
        return self._append_chained(self._chained(session_id, "system", {**fields, **extra}))

    def append_clear(self, session_id: str) -> bool:
        """/clear: the file keeps what was said, and loading starts again after this line."""
        return self.append_system(session_id, "clear", "Conversation cleared")

    def append_compaction(
        self,
        session_id: str,
        messages: list[dict[str, Any]],
        metadata: Mapping[str, Any],
        summary: str = "",
    ) -> bool:
        """A compaction as Claude Code 2.1 writes one (measured): a `system` `compact_boundary`
        line that starts a new chain (`parentUuid` null, `logicalParentUuid` the line before),
        then the compacted conversation as message lines (the first marked
        `isCompactSummary`), then a `summary` line. Loading resumes from the boundary."""
        self._write_pending_start()
        boundary = self._chained(
            session_id,
            "system",
            {
                "logicalParentUuid": self.last_uuid,
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "isMeta": False,
                "level": "info",
                "compactMetadata": dict(metadata),
            },
        )
        boundary["parentUuid"] = None
        if not self._append_chained(boundary):
            return False
        for i, message in enumerate(messages):
            marks = {"isCompactSummary": True} if i == 0 else {}
            if not self.append_message(session_id, message, **marks):
                return False
        return self.append({"type": "summary", "summary": summary, "leafUuid": self.last_uuid})

    def close(self) -> None:
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:
                pass
            self._fh = None
        if self.lock is not None:
            self.lock.release()
            self.lock = None


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
    last_uuid: str | None = None
    # The calls the user denied, and whether each deny ended its turn (USER_DENIALS).
    user_denials: dict[str, bool] = field(default_factory=dict)
    # Each call's recorded data (`toolUseResult`) by tool_use_id, for the resumed views.
    tool_results: dict[str, Any] = field(default_factory=dict)


MESSAGE_LINE_TYPES = ("user", "assistant")


class TranscriptError(Exception):
    pass


def load_transcript(
    path: Path, until: str | None = None, drops_turn: str | None = None
) -> LoadedTranscript:
    """Read a transcript's readable lines and repair it for the next request (read only).

    `until`: the conversation ends at the line with that uuid (the SDK's --resume-session-at);
    `drops_turn`: what that cut discards must be exactly the turn of that prompt uuid."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TranscriptError(f"cannot read transcript {path}: {exc.strerror}") from None
    parsed = parse_lines(raw, str(path))
    records = parsed.records if until is None else _cut_at(parsed.records, until, drops_turn)
    conversation = conversation_of(records, str(path))
    messages, repaired = repair_messages(conversation.messages)
    meta = conversation.meta
    return LoadedTranscript(
        session_id=str(meta.get("session_id") or path.stem),
        path=path,
        messages=messages,
        meta=meta,
        warnings=parsed.warnings + conversation.warnings,
        repaired=repaired,
        earlier=conversation.earlier,
        last_uuid=conversation.last_uuid,
        user_denials=conversation.user_denials,
        tool_results=conversation.tool_results,
    )


def _is_prompt(record: dict[str, Any]) -> bool:
    """A user line the person wrote (not one carrying only tool results)."""
    message = record.get("message")
    if record.get("type") != "user" or not isinstance(message, dict):
        return False
    content = message.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") != "tool_result" for b in content
    )


def _cut_at(
    records: list[dict[str, Any]], until: str, drops_turn: str | None
) -> list[dict[str, Any]]:
    at = next((i for i, r in enumerate(records) if r.get("uuid") == until), None)
    if at is None:
        raise TranscriptError(f"No message found with message.uuid of: {until}")
    kept, dropped = records[: at + 1], records[at + 1 :]
    if drops_turn is not None:
        prompts = [r.get("uuid") for r in dropped if _is_prompt(r)]
        first = next((r.get("uuid") for r in dropped if r.get("type") in MESSAGE_LINE_TYPES), None)
        if prompts != [drops_turn] or first != drops_turn:
            raise TranscriptError(
                f"Resume rejected by --resume-drops-turn: what follows {until} is not only "
                f"the turn of prompt {drops_turn}"
            )
    return kept


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
    branch: str = ""


def first_prompt_of(messages: list[dict[str, Any]]) -> str:
    """What the user first typed: the first user text that is not a tool result, a reminder,
    or an interrupt marker (the messages before a compaction come first, so its summary is
    never the first)."""
    for message in messages:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks or []:
            if not isinstance(block, dict) or block.get("type") != "text":
                continue
            text = str(block.get("text", "")).strip()
            command = _COMMAND_NAME.search(text) if text.startswith("<command-") else None
            if command is not None:  # a custom command: what was typed, not its expansion
                return f"{command.group(1).strip()} {command.group(2) or ''}".strip()
            if text and not text.startswith(("<", "[Request interrupted")):
                return text
    return ""


_COMMAND_NAME = re.compile(
    r"<command-name>([^<]*)</command-name>\s*(?:<command-args>(.*?)</command-args>)?", re.S
)


def list_sessions(project_dir: str | Path, limit: int = 50) -> list[SessionSummary]:
    """Sessions of a project, newest first, for the resume picker."""
    folder = project_transcripts_dir(project_dir)
    files = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)[:limit]
    out: list[SessionSummary] = []
    for path in files:
        try:
            loaded = load_transcript(path)
            modified = path.stat().st_mtime
        except (TranscriptError, OSError):
            continue
        everything = [*loaded.earlier, *loaded.messages]
        first = " ".join(first_prompt_of(everything).split())
        branch = str(loaded.meta.get("gitBranch") or "")
        out.append(
            SessionSummary(loaded.session_id, path, modified, first[:200], len(everything), branch)
        )
    return out


@dataclass(frozen=True)
class ClearedPart:
    """A conversation a /clear ended: Claude Code starts a new session at /clear, so what was
    said before it stays resumable there; here it is the transcript up to the line `until`."""

    session_id: str
    until: str  # the uuid of its last line (a resume forks the session from there)
    first_prompt: str
    messages: int


def cleared_parts(path: Path) -> list[ClearedPart]:
    """The conversations of a transcript that a /clear ended, oldest first (empty ones left out)."""
    records = parse_lines(path.read_bytes(), str(path)).records
    out: list[ClearedPart] = []
    last: str | None = None
    for at, record in enumerate(records):
        kind = record.get("type")
        if kind == "clear" or (kind == "system" and record.get("subtype") == "clear"):
            # Copies: reading a conversation consumes its records' line numbers.
            part = conversation_of([dict(r) for r in records[:at]], str(path))
            everything = [*part.earlier, *part.messages]
            if everything and last is not None:
                first = " ".join(first_prompt_of(everything).split())[:200]
                sid = str(part.meta.get("session_id") or path.stem)
                out.append(ClearedPart(sid, last, first, len(everything)))
        if isinstance(record.get("uuid"), str):
            last = record["uuid"]
    return out
