"""The command-line flags the Claude Agent SDK passes (its transport builds them; see CHANGELOG.md).

Kept free of anything heavy: `app/cli.py` calls `add_protocol_flags` while building its parser and
`protocol_options` after parsing, so `lathe --help` stays instant. Values are checked here, so a
malformed one is a usage error (exit 2) naming the flag, never a prompt.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, NoReturn

INPUT_FORMATS = ("text", "stream-json")
EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
THINKING_MODES = ("adaptive", "enabled", "disabled")
THINKING_DISPLAYS = ("summarized", "omitted")
SETTING_SOURCES = ("user", "project", "local")
# Claude Code's "auto" (a model classifier decides each call) has no lathe counterpart; it runs as
# "default", which asks where auto might have allowed: never looser (CHANGELOG.md).
MODE_ALIASES = {"auto": "default"}
BYPASS_REFUSED = (
    "Cannot set permission mode to bypassPermissions because the session was not launched "
    "with --dangerously-skip-permissions"
)


class ProtocolUsageError(Exception):
    """A protocol flag with a bad value: exit 2 with the message."""


@dataclass
class ProtocolOptions:
    """What the SDK's flags asked for; `None`/empty means "not given"."""

    input_format: str = "text"
    verbose: bool = False
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    tools: tuple[str, ...] | None = None
    max_budget_usd: float | None = None
    fallback_model: str | None = None
    session_id: str | None = None
    fork_session: bool = False
    setting_sources: tuple[str, ...] | None = None
    mcp_config: tuple[dict[str, Any], ...] = ()
    strict_mcp_config: bool = False
    include_hook_events: bool = False
    agents: dict[str, Any] = field(default_factory=dict)
    plugin_dirs: tuple[str, ...] = ()  # --plugin-dir (app/config/plugins.py)
    max_thinking_tokens: int | None = None
    json_schema: dict[str, Any] | None = None
    permission_prompt_tool: str | None = None
    # --allow-dangerously-skip-permissions / --dangerously-skip-permissions: only then may the
    # SDK switch the session to bypassPermissions later (Claude Code refuses it otherwise).
    allow_bypass: bool = False
    skip_permissions: bool = False
    # Request parameters: beta headers, `output_config` (effort, task budget) and the thinking mode
    # ("adaptive", "disabled"; None: --max-thinking-tokens decides).
    betas: tuple[str, ...] = ()
    effort: str | None = None
    task_budget: int | None = None
    thinking: str | None = None
    thinking_display: str | None = None
    # --resume-session-at: the resumed conversation ends at this line; --resume-drops-turn: the
    # prompt whose turn that cut must be exactly what it discards.
    resume_session_at: str | None = None
    resume_drops_turn: str | None = None

    @property
    def streaming_input(self) -> bool:
        return self.input_format == "stream-json"


class LatheParser(argparse.ArgumentParser):
    """Bad usage in one line naming the culprit (an unknown flag is never taken for a prompt)."""

    def error(self, message: str) -> NoReturn:
        prefix = "unrecognized arguments: "
        if message.startswith(prefix):
            unknown = message[len(prefix) :].split()
            flags = [u for u in unknown if u.startswith("-")] or unknown
            message = f"unknown option {flags[0]}" + (
                f" (and {', '.join(flags[1:])})" if len(flags) > 1 else ""
            )
        self.exit(2, f"lathe: {message} (lathe --help lists the options)\n")


def add_protocol_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Claude Agent SDK protocol (see README)")
    add = group.add_argument
    add("--input-format", choices=INPUT_FORMATS, default=None, help="with -p: text or stream-json")
    add("--verbose", action="store_true", help="with stream-json: every message line")
    add("--system-prompt", metavar="TEXT", help="replace the system prompt")
    add("--system-prompt-file", metavar="FILE", help="replace the system prompt with FILE")
    add("--append-system-prompt", metavar="TEXT", help="append TEXT to the system prompt")
    add("--tools", metavar="LIST", help='built-in tools offered: "a,b", "" (none) or "default"')
    add("--max-budget-usd", metavar="USD", help="stop once the session cost exceeds USD")
    add("--fallback-model", metavar="NAME", help="model used when the main one is overloaded")
    add("--session-id", metavar="UUID", help="the new session's id")
    add("--fork-session", action="store_true", help="with --resume/--continue: a new session id")
    add("--setting-sources", metavar="LIST", help="settings sources read: user,project,local")
    add("--mcp-config", metavar="JSON_OR_FILE", action="append", default=[], help="MCP servers")
    add("--strict-mcp-config", action="store_true", help="only the --mcp-config servers")
    add("--include-hook-events", action="store_true", help="with stream-json: hook event lines")
    add("--agents", metavar="JSON", help="subagent definitions (JSON object)")
    add("--plugin-dir", metavar="PATH", action="append", default=[], help="load a plugin folder")
    add("--max-thinking-tokens", metavar="N", help="extended-thinking budget")
    add("--json-schema", metavar="JSON", help="JSON schema the final answer must match")
    add("--permission-prompt-tool", metavar="NAME", help='"stdio": the SDK answers permissions')
    add("--betas", metavar="LIST", action="append", default=[], help="API beta headers to send")
    add("--effort", metavar="LEVEL", help="reasoning effort: low, medium, high, xhigh or max")
    add("--task-budget", metavar="TOKENS", help="the API-side task budget in tokens")
    add("--thinking", choices=THINKING_MODES, help="thinking: adaptive, enabled or disabled")
    add("--thinking-display", choices=THINKING_DISPLAYS, help="thinking text: summarized/omitted")
    add("--resume-session-at", metavar="UUID", help="with --resume: end the history at this line")
    add("--resume-drops-turn", metavar="UUID", help="with --resume-session-at: the turn it drops")
    add(
        "--dangerously-skip-permissions",
        action="store_true",
        help="start in bypassPermissions mode (never asks)",
    )
    add(
        "--allow-dangerously-skip-permissions",
        action="store_true",
        help="let the SDK switch to bypassPermissions later",
    )


def _json_arg(flag: str, text: str) -> Any:
    """Inline JSON, or a file holding it (as Claude Code reads --mcp-config)."""
    raw = text.strip()
    if not raw.startswith(("{", "[")):
        try:
            with open(os.path.expanduser(raw), encoding="utf-8-sig") as handle:
                raw = handle.read()
        except OSError as exc:
            raise ProtocolUsageError(f"{flag} {text}: {exc.strerror or exc}") from None
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise ProtocolUsageError(f"{flag}: not valid JSON ({exc})") from None


def _number(flag: str, text: str, kind: type[float] | type[int]) -> Any:
    try:
        value = kind(text)
    except ValueError:
        raise ProtocolUsageError(f"{flag} {text}: not a number") from None
    if value <= 0:
        raise ProtocolUsageError(f"{flag} must be more than 0")
    return value


def _inline_settings_file(text: str) -> str:
    """`--settings '{...}'` (the SDK's inline form) becomes a private .json file, so the one
    settings loader reads it with its line numbers and fail-closed checks."""
    _json_arg("--settings", text)  # a usage error now, not a settings error later
    folder = tempfile.mkdtemp(prefix="lathe-settings-")
    path = os.path.join(folder, "inline-settings.json")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def settings_value(text: str | None) -> str | None:
    """The --settings value as a path: inline JSON is written to a file first."""
    if text is not None and text.strip().startswith("{"):
        return _inline_settings_file(text)
    return text


def protocol_options(ns: argparse.Namespace) -> ProtocolOptions:
    opts = ProtocolOptions(
        input_format=ns.input_format or "text",
        verbose=ns.verbose,
        append_system_prompt=ns.append_system_prompt,
        fallback_model=ns.fallback_model,
        session_id=ns.session_id,
        fork_session=ns.fork_session,
        strict_mcp_config=ns.strict_mcp_config,
        include_hook_events=ns.include_hook_events,
        permission_prompt_tool=ns.permission_prompt_tool,
        skip_permissions=ns.dangerously_skip_permissions,
        allow_bypass=ns.dangerously_skip_permissions or ns.allow_dangerously_skip_permissions,
    )
    if ns.system_prompt is not None and ns.system_prompt_file is not None:
        raise ProtocolUsageError("--system-prompt and --system-prompt-file exclude each other")
    opts.system_prompt = ns.system_prompt
    if ns.system_prompt_file is not None:
        try:
            with open(os.path.expanduser(ns.system_prompt_file), encoding="utf-8") as handle:
                opts.system_prompt = handle.read()
        except OSError as exc:
            raise ProtocolUsageError(
                f"--system-prompt-file {ns.system_prompt_file}: {exc.strerror or exc}"
            ) from None
    if ns.tools is not None:
        names = tuple(t.strip() for t in ns.tools.split(",") if t.strip())
        opts.tools = None if names == ("default",) else names
    if ns.max_budget_usd is not None:
        opts.max_budget_usd = _number("--max-budget-usd", ns.max_budget_usd, float)
    if ns.max_thinking_tokens is not None:
        opts.max_thinking_tokens = _number("--max-thinking-tokens", ns.max_thinking_tokens, int)
    if ns.setting_sources is not None:
        sources = tuple(s.strip() for s in ns.setting_sources.split(",") if s.strip())
        bad = [s for s in sources if s not in SETTING_SOURCES]
        if bad:
            raise ProtocolUsageError(
                f"--setting-sources: unknown source {bad[0]!r} (expected user, project, local)"
            )
        opts.setting_sources = sources
    configs = []
    for value in ns.mcp_config:
        config = _json_arg("--mcp-config", value)
        if not isinstance(config, dict) or not isinstance(config.get("mcpServers", {}), dict):
            raise ProtocolUsageError('--mcp-config: expected {"mcpServers": {NAME: {...}}}')
        configs.append(config.get("mcpServers", {}))
    opts.mcp_config = tuple(configs)
    opts.plugin_dirs = tuple(ns.plugin_dir)
    if ns.agents is not None:
        agents = _json_arg("--agents", ns.agents)
        if not isinstance(agents, dict):
            raise ProtocolUsageError("--agents: expected a JSON object of agents")
        opts.agents = agents
    if ns.json_schema is not None:
        schema = _json_arg("--json-schema", ns.json_schema)
        if not isinstance(schema, dict):
            raise ProtocolUsageError("--json-schema: expected a JSON object")
        opts.json_schema = schema
    _request_flags(ns, opts)
    if opts.permission_prompt_tool not in (None, "stdio"):
        # Claude Code also takes an MCP tool's name here; lathe answers only over stdio.
        raise ProtocolUsageError(
            f"--permission-prompt-tool {opts.permission_prompt_tool}: only 'stdio' is supported"
        )
    return opts


def _request_flags(ns: argparse.Namespace, opts: ProtocolOptions) -> None:
    """--betas, --effort, --task-budget, --thinking(-display), --resume-session-at/-drops-turn:
    checked here, so a bad value is a usage error naming the flag (Claude Code's texts)."""
    opts.betas = tuple(b for value in ns.betas for b in value.replace(",", " ").split())
    if ns.effort is not None:
        effort = ns.effort.strip().lower()
        if effort not in EFFORT_LEVELS:
            raise ProtocolUsageError(
                f"--effort {ns.effort}: expected one of {', '.join(EFFORT_LEVELS)}"
            )
        opts.effort = effort
    if ns.task_budget is not None:
        opts.task_budget = _number("--task-budget", ns.task_budget, int)
    opts.thinking = ns.thinking
    opts.thinking_display = ns.thinking_display
    opts.resume_session_at = ns.resume_session_at
    opts.resume_drops_turn = ns.resume_drops_turn
    if opts.resume_drops_turn is not None and opts.resume_session_at is None:
        raise ProtocolUsageError("--resume-drops-turn requires --resume-session-at")
    if opts.resume_session_at is not None and not getattr(ns, "resume", None):
        raise ProtocolUsageError("--resume-session-at requires --resume")
