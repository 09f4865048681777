"""The composition root: a Session built from options, the settings files and the environment.

Every front end gets its session here, so `lathe`, `lathe -p` and the protocol front ends see
exactly the same rules, tools, model and transcripts. The settings are loaded once; the
permission rules, the prompter, the hooks and the MCP servers are wired into typed SessionParts.
Only this module (and app/cli.py) knows the command line's options.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.compose_options import cli_overrides, engine_options
from app.config import load_settings
from app.config.hooks import (
    drop_disabled_hooks,
    hook_sources_from_settings,
    parse_hook_sources,
)
from app.config.paths import config_dir, project_dir, state_dir
from app.engine.events import EngineEvent
from app.engine.options import EngineOptions
from app.engine.prompter import EventPrompter
from app.engine.session import Session, SessionParts
from app.engine.setup import (
    SessionSetup,
    SetupError,
    open_transcript,
    settings_error_text,
    tool_options,
)
from app.execution.interfaces import DenyingPrompter, Prompter
from app.hooks.runner import CommandHookRunner
from app.mcp.config import McpConfig, load_mcp_config, parse_servers
from app.model.client import MissingCredentials, open_backend
from app.model.request import INTRO, build_system
from app.model.scenario import ScenarioError
from app.permissions import RuleDecider, context_from_settings, is_trusted
from app.state_cleanup import clean_state_at_start
from tools.base import Terminals, TextFiles, Tool, ToolContext
from tools.process.child_env import clear_env_files, set_passthrough, set_session_env
from tools.registry import assemble_tool_pool, get_all_base_tools, get_tools

__all__ = ["build_session", "cli_overrides", "engine_options"]

if TYPE_CHECKING:
    # The command line's parsed options, for annotations only.
    from app.cli import CliOptions
    from app.config.loader import LoadedSettings


def build_session(
    options: CliOptions | EngineOptions,
    *,
    interactive: bool,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    sink: Callable[[EngineEvent], None] | None = None,
    prompter: Prompter | None = None,
    trusted: bool | None = None,
    ask_user: bool | None = None,
    sdk_transport: Callable[[str], Any] | None = None,
    adapt_tool: Callable[[Tool[Any]], Tool[Any]] | None = None,
    settings: LoadedSettings | None = None,
    text_files: TextFiles | None = None,
    terminals: Terminals | None = None,
) -> SessionSetup:
    """A session ready to run. `interactive` is the TUI's start (trust asked, the demo model
    without credentials, broken settings left to a dialog); `-p` and the protocol front ends
    are not. `ask_user` (default: `interactive`) makes permission questions PermissionRequested
    events a front end answers; without it, what would need asking is denied, saying how to
    allow it. A `prompter` given replaces both. `sdk_transport` opens the streams of an
    `{"type": "sdk"}` MCP server (a server inside the program driving lathe). `adapt_tool` sees
    each built-in tool as it is offered and returns it (ACP keeps them by name, to ask a tool what
    kind of work a call is).
    `settings`: the files as the front end already loaded them with these options (the TUI
    reads them once, before its first frame); None: loaded here. `text_files`: the text files
    Read, Edit and Write go through instead of the disk (ACP: the editor's buffers);
    `terminals`: where Bash runs foreground commands instead of local processes (ACP: the
    editor's terminals)."""
    opts = engine_options(options)
    environ = os.environ if env is None else env
    start = Path(cwd or os.getcwd()).resolve()
    project = project_dir(start)
    warnings: list[str] = []
    for d in opts.add_dirs:
        if not Path(d).expanduser().is_dir():
            raise SetupError(f"--add-dir {d}: not a folder")
    cli = cli_overrides(opts)
    if opts.settings and not Path(opts.settings).expanduser().is_file():
        raise SetupError(f"--settings {opts.settings}: no such file")
    loaded = settings if settings is not None else load_settings(start, cli, env)
    # Headless runs honour the project's settings: the user ran the command there on purpose.
    is_trusted_now = (
        True if not interactive else (is_trusted(project, env) if trusted is None else trusted)
    )
    # Headless runs honour the project's settings, except what would reach past the project from
    # a folder nobody trusted (app/permissions/load.py).
    permissions = context_from_settings(
        loaded, trusted=is_trusted_now, env=env, confine_untrusted=not interactive
    )
    errors = [p for p in permissions.problems if p.severity == "error"]
    if errors and not interactive:
        # Fail closed: a broken file may hold the deny rule that matters. The TUI asked the user
        # before building (reload, exit, or go on with the broken files' deny rules only).
        raise SetupError(settings_error_text(errors))
    warnings.extend(str(p) for p in permissions.problems)
    # A headless run in a folder nobody trusted: the checked-in files keep their hooks and servers
    # but cannot set what settings.example.toml says untrusted project files cannot.
    confined = not interactive and not is_trusted(project, env)
    merged = loaded.merged(trusted=is_trusted_now, confined=confined)
    if confined:
        warnings.extend(str(p) for p in loaded.confined_problems())
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

    from app.skills.catalog import SkillCatalog
    from app.skills.session_load import load_for_session

    plugins = _plugins(options, project, environ, is_trusted_now, warnings)
    commands, skill_set = load_for_session(
        str(project),
        env=environ,
        plugins=plugins,
        extra_dirs=cli.add_dirs,
        sources=opts.setting_sources,
    )
    skills = SkillCatalog(skill_set)
    skills_text = skill_set.listing()
    base = get_all_base_tools()
    if adapt_tool is not None:
        base = [adapt_tool(t) for t in base]
    builtins = get_tools(decider, base_tools=base, simple=True if opts.bare else None)
    builtins = [*_narrow_tools(builtins, opts.tools, warnings), *opts.extra_tools]
    if not skills_text and not skill_set.has_conditional():  # no skill for the model: no tool
        builtins = [t for t in builtins if not t.offers_skills]
    elif not any(t.offers_skills for t in builtins):
        skills_text = ""  # simple mode, --tools or a deny rule took the tool: no listing of it
    from app.agents.loader import load_for_session as load_agents

    agents = load_agents(str(project), env=environ, plugins=plugins)
    warnings.extend(agents.problems)
    _add_flag_agents(agents, options, warnings)
    # The Agent tool's description lists the agent types this session knows (each tool's own
    # `with_agents`: the others are unchanged).
    summaries = agents.summaries()
    builtins = [t.with_agents(summaries) for t in builtins]
    pool = assemble_tool_pool(builtins, (), decider)
    # MCP servers connect after the session exists (Session.start_mcp), so a slow one never
    # delays the first frame or, in the TUI, the first prompt.
    mcp_config = load_mcp_config(
        merged.mcp.servers, project, env, trusted=is_trusted_now, confined=confined
    )
    mcp_config = _with_option_servers(mcp_config, opts, environ)
    if plugins and not opts.strict_mcp_config:  # --strict-mcp-config: its servers alone
        from app.mcp.plugin_servers import with_plugin_servers

        mcp_config = with_plugin_servers(mcp_config, plugins, environ)
    warnings.extend(str(p) for p in mcp_config.problems)
    mcp = None
    if mcp_config.servers:
        from app.mcp.manager import McpManager  # the MCP SDK loads only when a server is configured

        mcp = McpManager.from_config(
            mcp_config, cwd=str(start), env=environ, sdk_transport=sdk_transport
        )

    opened = open_transcript(opts, project, state_dir(env), start, backend.model)
    warnings.extend(opened.warnings)
    session_id, transcript, resumed = opened.session_id, opened.writer, opened.resumed

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
        options=replace(tool_options(environ), extra={"skills": skills}),
        text_files=text_files,
        terminals=terminals,
    )
    intro = opts.intro if opts.intro is not None else INTRO
    view = decider.view()

    def memory_refuse(path: Path) -> str:
        # A memory file or `@import` a Read deny rule covers stays out (as in Claude Code).
        decision = view.check_path("Read", str(path), "read")
        if decision.behavior != "deny":
            return ""
        return decision.message or "a Read deny rule covers it"

    # `--add-dir` folders' CLAUDE.md, .claude/CLAUDE.md and rules, when this Claude Code
    # variable asks for them (2.1.332 reads them then, not otherwise).
    memory_dirs = (
        tuple(Path(d) for d in cli.add_dirs)
        if environ.get("CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD", "").strip().lower()
        in ("1", "true", "yes", "on")
        else ()
    )

    def memory_confined() -> bool:
        # A folder nobody trusted: its memory files import nothing from outside the project
        # (a CLAUDE.md's `@~/.npmrc` would send the token to the API).
        return not decider.context.trusted or decider.context.confined

    system = build_system(
        start,
        project_root=project,
        config_dir=config_dir(env),
        intro=intro,
        skills_text=skills_text,
        memory_refuse=memory_refuse,
        extra_dirs=memory_dirs,
        memory_confine=memory_confined(),
        memory_sources=opts.setting_sources,
    )
    from app.memory.files import load_memory

    loaded_memory = load_memory(
        start,
        project,
        config_dir(env),
        environ,
        refuse=memory_refuse,
        extra_dirs=memory_dirs,
        confine_to=project if memory_confined() else None,
        sources=opts.setting_sources,
    )
    warnings.extend(loaded_memory.problems)
    warnings.extend(commands.problems)
    from app.engine.context import ContextConfig, beta_headers

    betas = beta_headers(
        backend.model, ContextConfig.from_settings(merged, extended_named=backend.extended)
    )
    if betas:
        # The 1M-token window is a beta: every request of this client asks for it.
        backend.client = backend.client.with_options(default_headers=betas)

    def get_mode() -> str:
        return decider.context.mode

    from app.config.plugins import plugin_hook_sources

    plugin_problems: list[str] = []
    hook_list, hook_notes = drop_disabled_hooks(
        loaded,
        [*hook_sources_from_settings(loaded), *plugin_hook_sources(plugins, plugin_problems)],
        confined=permissions.confined or not is_trusted_now,
    )
    warnings.extend(plugin_problems)
    warnings.extend(hook_notes)
    hook_config = parse_hook_sources(hook_list, trusted=is_trusted_now)
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
    # A handler's `if` rule is matched by the permission layer's matchers (ext-r3 F6).
    from app.execution.hook_conditions import condition_matcher

    hooks.condition = condition_matcher(str(project), environ.get("HOME"))
    # The hooks' `effort` field names what the requests carry (`--effort`), nothing else.
    effort = getattr(getattr(options, "sdk", None), "effort", None)
    hooks.effort = str(effort) if effort else None
    clear_env_files()  # a new session starts without the last one's CLAUDE_ENV_FILEs

    # Questions become PermissionRequested events, answered by the front end.
    asks = interactive if ask_user is None else ask_user
    asking = EventPrompter(decider) if asks and prompter is None else None
    parts = SessionParts(
        backend=backend,
        pool=pool,
        context=context,
        system=system,
        decider=decider,
        prompter=asking or prompter or DenyingPrompter(),
        session_id=session_id,
        hooks=hooks,
        session_hooks=hooks,
        transcript=transcript,
        messages=resumed.messages if resumed else [],
        earlier_messages=list(resumed.earlier) if resumed else [],
        user_denials=dict(resumed.user_denials) if resumed else {},
        recorded_results=dict(resumed.tool_results) if resumed else {},
        max_turns=opts.max_turns,
        fallback_tools=tuple(base),
        builtin_tools=tuple(builtins),
        mcp=mcp,
        rules=decider,
        settings=merged,
        project_dir=str(project),
        commands=commands,
        nested_memory=_nested_memory(
            start, loaded_memory, skill_set, skills_text, opts.setting_sources
        ),
        memory_files=tuple(
            (str(f.path), _MEMORY_TYPES.get(f.kind, "Project")) for f in loaded_memory.files
        ),
        skills=skills,
        rebuild_system=lambda: build_system(
            start,
            project_root=project,
            config_dir=config_dir(env),
            intro=intro,
            skills_text=skills_text,
            memory_refuse=memory_refuse,
            extra_dirs=memory_dirs,
            memory_confine=memory_confined(),
            memory_sources=opts.setting_sources,
        ),
        include_partial_messages=opts.include_partial_messages,
        fallback_model=opts.fallback_model,
        request_extra=opts.request_extra,
        agents=agents,
        build_system=lambda intro, with_skills: build_system(
            start,
            project_root=project,
            config_dir=config_dir(env),
            intro=intro,
            skills_text=skills_text if with_skills else "",
            memory_refuse=memory_refuse,
            extra_dirs=memory_dirs,
            memory_confine=memory_confined(),
            memory_sources=opts.setting_sources,
        ),
    )
    session = Session(parts, sink)
    from app.engine.side_query import make_hook_asker

    hooks.prompt_asker = make_hook_asker(session)
    if asking is not None:
        asking.bind(session)
    return SessionSetup(session, warnings, resumed, is_trusted_now)


def _narrow_tools(
    builtins: Sequence[Tool[Any]], names: tuple[str, ...] | None, warnings: list[str]
) -> list[Tool[Any]]:
    """Only the built-ins named (by name or alias); None: all of them, (): none."""
    if names is None:
        return list(builtins)
    known = {t.name for t in builtins} | {a for t in builtins for a in t.aliases}
    warnings.extend(f"--tools: no built-in tool named {n!r}" for n in names if n not in known)
    return [t for t in builtins if t.name in names or any(a in names for a in t.aliases)]


def _with_option_servers(
    config: McpConfig, opts: EngineOptions, env: Mapping[str, str]
) -> McpConfig:
    """The settings' servers plus the options' (these win a name clash, as --mcp-config does in
    Claude Code); `strict_mcp_config`: the options' alone."""
    if not opts.mcp_servers and not opts.strict_mcp_config:
        return config
    out = (
        McpConfig()
        if opts.strict_mcp_config
        else McpConfig(list(config.servers), list(config.problems))
    )
    for raw in opts.mcp_servers:
        specs, problems = parse_servers(raw, "--mcp-config", env, allow_sdk=True)
        out.problems.extend(problems)
        for spec in specs:
            out.servers = [s for s in out.servers if s.name != spec.name] + [spec]
    return out


# lathe's memory kinds in Claude Code's InstructionsLoaded `memory_type` words.
_MEMORY_TYPES = {"user": "User", "project": "Project", "local": "Local", "managed": "Managed"}


def _add_flag_agents(agents: Any, options: Any, warnings: list[str]) -> None:
    """`--agents JSON`: agent types of this session in every mode, replacing a file's or a
    built-in's of the same name (Claude Code 2.1.332 takes the flag in the TUI and -p too)."""
    from app.agents.inline import parse_agent_specs

    specs = getattr(getattr(options, "sdk", None), "agents", None)
    for definition in parse_agent_specs(specs, warnings.append):
        agents.agents[definition.name] = definition


def _plugins(
    options: Any, project: Path, env: Mapping[str, str], trusted: bool, warnings: list[str]
) -> list[Any]:
    """Claude Code plugins: installed ones `enabledPlugins` turns on, and `--plugin-dir` ones.
    A project's settings enable plugins only where its hooks would run (a plugin runs hooks)."""
    from app.config.plugins import load_plugins
    from app.memory.files import claude_user_dir

    claude_dir = claude_user_dir(env)
    files = [claude_dir / "settings.json"]
    if trusted:
        files.append(project / ".claude" / "settings.json")
    files.append(project / ".claude" / "settings.local.json")
    dirs = tuple(getattr(getattr(options, "sdk", None), "plugin_dirs", ()) or ())
    plugins, problems = load_plugins(claude_dir, files, dirs)
    warnings.extend(problems)
    return plugins


def _nested_memory(
    start: Path, loaded: Any, skill_set: Any, skills_text: str, sources: Any = None
) -> Any:
    """Memory that loads as files are worked on, and the `paths:` skills announced the same way
    (where the Skill tool is offered: `skills_text` empty means it is not)."""
    from app.memory.nested import NestedMemory

    nested = NestedMemory(start, loaded, subfolders=sources is None or "project" in sources)
    if skills_text or skill_set.has_conditional():
        nested.watchers.append(skill_set.reveal_for)
    return nested
