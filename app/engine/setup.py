"""The engine's side of building a session: the errors, the transcript (new or resumed, locked
for one writer), the tools' options. The composition root (app/compose.py) calls these while it
wires settings, permissions, hooks and MCP into SessionParts.

Problems that make the run impossible raise SetupError (exit 2 in -p); problems that only disable
a part (a malformed rule, a broken user settings file) are returned as warnings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.config import SettingsProblem
from app.engine.options import EngineOptions
from app.engine.options import SetupError as SetupError
from app.engine.session import Session
from app.session_lock import SessionInUse, SessionLock
from app.state_cleanup import clean_session_leftovers
from app.transcript import (
    LoadedTranscript,
    TranscriptError,
    TranscriptWriter,
    find_latest,
    find_session,
    git_branch,
    load_transcript,
    new_session_id,
    project_transcripts_dir,
    truncate_torn_tail,
)
from app.transcript_repair import USER_DENIALS
from tools.base import ToolOptions


def settings_error_text(errors: Sequence[SettingsProblem]) -> str:
    body = "\n".join(f"  {p}" for p in errors)
    return f"broken settings, fix them first (nothing ran):\n{body}"


@dataclass
class SessionSetup:
    session: Session
    warnings: list[str] = field(default_factory=list)
    resumed: LoadedTranscript | None = None
    trusted: bool = True


def _int_env(env: Mapping[str, str], name: str, default: int) -> int:
    try:
        value = int(env.get(name, "") or default)
        return value if value > 0 else default
    except ValueError:
        return default


def tool_options(env: Mapping[str, str]) -> ToolOptions:
    max_ms = _int_env(env, "BASH_MAX_TIMEOUT_MS", 600_000)
    default_ms = min(_int_env(env, "BASH_DEFAULT_TIMEOUT_MS", 120_000), max_ms)
    return ToolOptions(bash_default_timeout_ms=default_ms, bash_max_timeout_ms=max_ms)


def _lock_session(state: Path, session_id: str) -> SessionLock:
    """One writer per session: a second lathe on a session in use stops here (exit 2 in -p)."""
    try:
        lock = SessionLock.acquire(state / "sessions" / session_id, session_id)
    except SessionInUse as exc:
        raise SetupError(str(exc)) from None
    except OSError as exc:
        raise SetupError(f"cannot lock session {session_id}: {exc.strerror or exc}") from None
    # The start-up sweep skips sessions whose lock is held, this one included from now on: what
    # a killed writer of this very session left is ours to remove (nothing of ours runs yet).
    clean_session_leftovers(state / "sessions" / session_id)
    return lock


@dataclass
class OpenedTranscript:
    session_id: str
    writer: TranscriptWriter
    resumed: LoadedTranscript | None
    warnings: list[str]


def open_transcript(
    opts: EngineOptions, project: Path, state: Path, start: Path, model: str
) -> OpenedTranscript:
    """The session's transcript: the one --continue/--resume names (locked, its torn tail cut,
    loaded), or a new one whose `session_start` line is written with its first message."""
    warnings: list[str] = []
    if opts.continue_session or opts.resume:
        path = (
            find_latest(project)
            if opts.continue_session
            else find_session(opts.resume or "", project)
        )
        if path is None:
            what = (
                "no earlier session in this folder"
                if opts.continue_session
                else f"no session {opts.resume!r}"
            )
            raise SetupError(f"cannot resume: {what}")
        if opts.resume_at is not None and not opts.fork_session:
            # lathe's transcripts do not branch in place: the cut history goes into a new session.
            raise SetupError("--resume-session-at needs --fork-session (a new session from there)")
        lock = _lock_session(state, path.stem)
        try:
            # We are the writer now: a torn last line goes before anything is appended after it.
            cut = truncate_torn_tail(path)
            resumed = load_transcript(path, opts.resume_at, opts.resume_drops_turn)
        except (TranscriptError, OSError) as exc:
            lock.release()
            raise SetupError(str(exc)) from None
        if cut:
            warnings.append(
                f"{path}: the last line was cut short (a crash?); its {cut} bytes were removed"
            )
        warnings.extend(resumed.warnings)
        if not opts.fork_session:
            writer = TranscriptWriter(
                path,
                last_uuid=resumed.last_uuid,
                lock=lock,
                cwd=str(start),
                git_branch=git_branch(start),
            )
            return OpenedTranscript(resumed.session_id, writer, resumed, warnings)
        # --fork-session: the conversation goes on under a new id, in a new transcript holding
        # it; the old session is left as it was (and unlocked: we never write it).
        lock.release()
        opened = open_transcript(
            replace(opts, continue_session=False, resume=None), project, state, start, model
        )
        for message in resumed.messages:
            recorded, extra = _kept_beside(message, resumed)
            opened.writer.append_message(opened.session_id, message, recorded, **extra)
        return OpenedTranscript(opened.session_id, opened.writer, resumed, warnings)
    session_id = opts.session_id or new_session_id()
    if opts.session_id and find_session(session_id, project) is not None:
        raise SetupError(f"--session-id {session_id}: a session with this id already exists")
    writer = TranscriptWriter(
        project_transcripts_dir(project) / f"{session_id}.jsonl",
        lock=_lock_session(state, session_id),
        cwd=str(start),
        git_branch=git_branch(start),
    )
    # Written with the first message: a launch nobody typed in leaves no session behind.
    writer.start_when_written(
        session_id, "lathe session started", project=str(project), model=model
    )
    return OpenedTranscript(session_id, writer, None, warnings)


def _kept_beside(
    message: Mapping[str, Any], resumed: LoadedTranscript
) -> tuple[Any, dict[str, Any]]:
    """What the old lines kept beside a message of tool results -- each call's `toolUseResult`
    and the user's denials (USER_DENIALS) -- so the fork, resumed later, shows the same views."""
    content = message.get("content")
    if message.get("role") != "user" or not isinstance(content, list):
        return None, {}
    ids = [
        str(b.get("tool_use_id"))
        for b in content
        if isinstance(b, Mapping) and b.get("type") == "tool_result"
    ]
    if not ids:
        return None, {}
    values = [resumed.tool_results.get(i) for i in ids]
    recorded: Any = values[0] if len(ids) == 1 else values
    if all(v is None for v in values):
        recorded = None
    denied = [
        {"tool_use_id": i, "endsTurn": resumed.user_denials[i]}
        for i in ids
        if i in resumed.user_denials
    ]
    return recorded, ({USER_DENIALS: denied} if denied else {})
