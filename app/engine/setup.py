"""Building a Session from the command line, the settings files and the environment.

Both front ends use this, so `lathe` and `lathe -p` see exactly the same rules, tools, model and
transcripts. Problems that make the run impossible raise SetupError (exit 2 in -p); problems that
only disable a part (a malformed rule, a broken user settings file) are returned as warnings.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from app.cli import CliOptions
from app.config import CliOverrides, SettingsProblem, load_settings
from app.config.paths import config_dir, project_dir, state_dir
from app.engine.events import EngineEvent
from app.engine.session import Session, SessionParts
from app.execution.interfaces import DenyingPrompter, Prompter
from app.hooks.config import hook_sources_from_settings, parse_hook_sources
from app.hooks.runner import CommandHookRunner
from app.mcp.config import load_mcp_config
from app.model.client import MissingCredentials, open_backend
from app.model.request import build_system
from app.model.scenario import ScenarioError
from app.permissions import RuleDecider, context_from_settings, is_trusted
from app.permissions.modes import parse_mode
from app.session_lock import SessionInUse, SessionLock
from app.state_cleanup import clean_session_leftovers, clean_state_at_start
from app.transcript import (
    LoadedTranscript,
    TranscriptError,
    TranscriptWriter,
    find_latest,
    find_session,
    load_transcript,
    new_session_id,
    project_transcripts_dir,
    truncate_torn_tail,
)
from tools.base import ToolContext, ToolOptions
from tools.process.child_env import clear_env_files, set_passthrough, set_session_env
from tools.registry import assemble_tool_pool, get_all_base_tools, get_tools


class SetupError(Exception):
    """The session cannot start; the message names the file or flag and the problem."""


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


def build_session(
    opts: CliOptions,
    *,
    interactive: bool,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    sink: Callable[[EngineEvent], None] | None = None,
    prompter: Prompter | None = None,
    trusted: bool | None = None,
) -> SessionSetup:
    environ = os.environ if env is None else env
    start = Path(cwd or os.getcwd()).resolve()
    project = project_dir(start)
    warnings: list[str] = []
    for d in opts.add_dirs:
        if not Path(d).expanduser().is_dir():
            raise SetupError(f"--add-dir {d}: not a folder")
    cli = CliOverrides(
        settings_file=opts.settings,
        allowed_tools=tuple(opts.allowed_tools),
        disallowed_tools=tuple(opts.disallowed_tools),
        permission_mode=parse_mode(opts.permission_mode) if opts.permission_mode else None,
        add_dirs=tuple(str(Path(d).expanduser().resolve()) for d in opts.add_dirs),
    )
    if opts.settings and not Path(opts.settings).expanduser().is_file():
        raise SetupError(f"--settings {opts.settings}: no such file")
    loaded = load_settings(start, cli, env)
    # Headless runs honour the project's settings: the user ran the command there on purpose.
    is_trusted_now = (
        True if not interactive else (is_trusted(project, env) if trusted is None else trusted)
    )
    permissions = context_from_settings(loaded, trusted=is_trusted_now, env=env)
    errors = [p for p in permissions.problems if p.severity == "error"]
    if errors and not interactive:
        # Fail closed: a broken file may hold the deny rule that matters. The TUI asked the user
        # before building (reload, exit, or go on with the broken files' deny rules only).
        raise SetupError(settings_error_text(errors))
    warnings.extend(str(p) for p in permissions.problems)
    merged = loaded.merged(trusted=is_trusted_now)
    # What Bash, hooks and MCP servers may see of lathe's credentials (none unless passed on).
    set_passthrough(merged.passthrough_env)
    # The settings' `env` reaches Bash, hooks and MCP servers as written, credentials included:
    # the user set each one on purpose (an untrusted project's env is not in `merged`).
    set_session_env(merged.env)
    if env is None and merged.env:
        # Settings' `env` applies to the whole session: tools, hooks, MCP servers, the client.
        os.environ.update(merged.env)
    decider = RuleDecider(permissions)

    try:
        backend = open_backend(
            model_flag=opts.model,
            model_script=opts.model_script,
            settings_model=merged.model,
            env=env,
            cwd=start,
            fallback_to_demo=interactive,
            max_retries=0,  # lathe retries itself, so every retry is shown
            api_key_helper=merged.api_key_helper,
        )
    except (MissingCredentials, ScenarioError) as exc:
        raise SetupError(str(exc)) from None

    base = get_all_base_tools()
    builtins = get_tools(decider, base_tools=base, simple=True if opts.bare else None)
    pool = assemble_tool_pool(builtins, (), decider)
    # MCP servers connect after the session exists (Session.start_mcp), so a slow one never
    # delays the first frame or, in the TUI, the first prompt.
    mcp_config = load_mcp_config(merged.mcp.servers, project, env, trusted=is_trusted_now)
    warnings.extend(str(p) for p in mcp_config.problems)
    mcp = None
    if mcp_config.servers:
        from app.mcp.manager import McpManager  # the MCP SDK loads only when a server is configured

        mcp = McpManager.from_config(mcp_config, cwd=str(start), env=environ)

    resumed: LoadedTranscript | None = None
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
        lock = _lock_session(state_dir(env), path.stem)
        try:
            # We are the writer now: a torn last line goes before anything is appended after it.
            cut = truncate_torn_tail(path)
            resumed = load_transcript(path)
        except (TranscriptError, OSError) as exc:
            lock.release()
            raise SetupError(str(exc)) from None
        if cut:
            warnings.append(
                f"{path}: the last line was cut short (a crash?); its {cut} bytes were removed"
            )
        warnings.extend(resumed.warnings)
        session_id = resumed.session_id
        transcript = TranscriptWriter(path, last_uuid=resumed.last_uuid, lock=lock)
    else:
        session_id = new_session_id()
        transcript = TranscriptWriter(
            project_transcripts_dir(project) / f"{session_id}.jsonl",
            lock=_lock_session(state_dir(env), session_id),
        )
        transcript.append(
            {
                "type": "session",
                "session_id": session_id,
                "cwd": str(start),
                "project": str(project),
                "model": backend.model,
                "started": time.time(),
            }
        )

    # After this session's lock is taken, so the cleanup leaves this session alone.
    clean_state_at_start(state_dir(env), merged.cleanup_period_days)
    from app.engine.cleanup import cleanup_days, start_cleanup

    # The same setting for transcripts (Claude Code deletes those too), never this session's.
    start_cleanup(state_dir(env), cleanup_days(merged.cleanup_period_days), session_id, environ)

    working = (str(project), *cli.add_dirs)
    if str(start) not in working and not str(start).startswith(str(project)):
        working = (str(start), *working)
    context = ToolContext(
        cwd=str(start),
        project_dir=str(project),
        working_dirs=working,
        session_id=session_id,
        session_dir=str(state_dir(env) / "sessions" / session_id),
        permissions=decider.view(),
        options=tool_options(environ),
    )
    system = build_system(start, project_root=project, config_dir=config_dir(env))
    from app.commands.loader import load_for_session

    commands = load_for_session(str(project), env=environ)
    from app.memory.files import load_memory
    from app.memory.nested import NestedMemory

    loaded_memory = load_memory(start, project, config_dir(env), environ)
    warnings.extend(loaded_memory.problems)
    warnings.extend(commands.problems)
    from app.engine.context import ContextConfig, beta_headers

    betas = beta_headers(backend.model, ContextConfig.from_settings(merged))
    if betas:
        # The 1M-token window is a beta: every request of this client asks for it.
        backend.client = backend.client.with_options(default_headers=betas)

    def get_mode() -> str:
        return decider.context.mode

    hook_config = parse_hook_sources(hook_sources_from_settings(loaded), trusted=is_trusted_now)
    warnings.extend(str(p) for p in hook_config.problems)
    hooks = CommandHookRunner(
        hook_config,
        session_id=session_id,
        transcript_path=str(transcript.path),
        cwd=str(start),
        project_dir=str(project),
        permission_mode=get_mode,
        env=environ,
        env_file_dir=str(Path(context.session_dir or ".") / "session-env"),
    )
    clear_env_files()  # a new session starts without the last one's CLAUDE_ENV_FILEs

    def set_mode(mode: str) -> None:
        decider.set_context(replace(decider.context, mode=parse_mode(mode)))

    parts = SessionParts(
        backend=backend,
        pool=pool,
        context=context,
        system=system,
        decider=decider,
        prompter=prompter if interactive else (prompter or DenyingPrompter()),
        session_id=session_id,
        hooks=hooks,
        session_hooks=hooks,
        transcript=transcript,
        messages=resumed.messages if resumed else [],
        max_turns=opts.max_turns,
        fallback_tools=tuple(base),
        builtin_tools=tuple(builtins),
        mcp=mcp,
        get_mode=get_mode,
        set_mode=set_mode,
        extra={
            "include_partial_messages": opts.include_partial_messages,
            "decider": decider,
            "settings": merged,
            "project_dir": str(project),
            "hook_config": hook_config,
            "commands": commands,
            "nested_memory": NestedMemory(start, loaded_memory),
            # Compaction rebuilds the system prompt, re-reading the memory files from disk.
            "rebuild_system": lambda: build_system(
                start, project_root=project, config_dir=config_dir(env)
            ),
        },
    )
    return SessionSetup(Session(parts, sink), warnings, resumed, is_trusted_now)
