"""Where MCP servers come from: the settings' `[mcp.servers.NAME]` tables and `<project>/.mcp.json`.

Both use Claude Code's shape: `{"command", "args", "env"}` for a local server over stdio, or
`{"type": "http"|"sse", "url", "headers"}` for a remote one. Strings may use `${VAR}` and
`${VAR:-default}`, expanded from the environment as Claude Code does; a variable that is unset and
has no default stays as written and is reported. A bad entry never stops the others: it becomes a
problem that names the file and the server.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from app import jsonlimits
from tools.process.child_env import is_secret

# "sdk": a server living in the Claude Agent SDK program, reached over the control protocol.
Transport = Literal["stdio", "http", "sse", "sdk"]

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_HTTP_TYPES = {"http", "streamable-http", "streamable_http", "streamablehttp"}
MCP_JSON = ".mcp.json"
SETTINGS_LABEL = "settings [mcp.servers]"


@dataclass(frozen=True)
class ServerSpec:
    """How to start or reach one server. `source` says where it was configured."""

    name: str
    transport: Transport
    source: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class McpProblem:
    source: str
    server: str
    message: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        where = f"{self.source}: MCP server {self.server!r}" if self.server else self.source
        return f"{where}: {self.message}"


@dataclass
class McpConfig:
    servers: list[ServerSpec] = field(default_factory=list)
    problems: list[McpProblem] = field(default_factory=list)

    def find(self, name: str) -> ServerSpec | None:
        return next((s for s in self.servers if s.name == name), None)


def expand_vars(text: str, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """Expand `${VAR}` and `${VAR:-default}`; return the text and the names left unexpanded."""
    missing: list[str] = []

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        missing.append(name)
        return match.group(0)

    return _VAR.sub(replace, text), missing


class _Reader:
    """Parses one source's table of servers, collecting problems instead of raising."""

    def __init__(
        self,
        source: str,
        env: Mapping[str, str],
        allow_sdk: bool = False,
        withheld: frozenset[str] = frozenset(),
    ) -> None:
        self.source = source
        self.env = env
        # Credentials this file may not name (a checked-in file of a folder nobody trusted).
        self.withheld = withheld
        self.allow_sdk = allow_sdk
        self.problems: list[McpProblem] = []

    def problem(self, server: str, message: str, severity: str = "error") -> None:
        level: Literal["error", "warning"] = "warning" if severity == "warning" else "error"
        self.problems.append(McpProblem(self.source, server, message, level))

    def text(self, server: str, what: str, value: Any) -> str | None:
        if not isinstance(value, str):
            self.problem(server, f"{what} must be a string, not {_json_type(value)}")
            return None
        expanded, missing = expand_vars(value, self.env)
        kept = sorted(set(missing) & self.withheld)
        if kept:
            names = ", ".join(kept)
            self.problem(
                server,
                f"{what}: {names} not expanded: lathe's credentials are not given to a "
                "checked-in .mcp.json in a folder that is not trusted",
                "warning",
            )
        unset = sorted(set(missing) - self.withheld)
        if unset:
            names = ", ".join(unset)
            self.problem(server, f"{what}: environment variables not set: {names}", "warning")
        return expanded

    def strings(self, server: str, what: str, value: Any) -> tuple[str, ...] | None:
        if value is None:
            return ()
        if not isinstance(value, list):
            self.problem(server, f"{what} must be a list of strings, not {_json_type(value)}")
            return None
        out: list[str] = []
        for i, item in enumerate(value):
            text = self.text(server, f"{what}[{i}]", item)
            if text is None:
                return None
            out.append(text)
        return tuple(out)

    def table(self, server: str, what: str, value: Any) -> dict[str, str] | None:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.problem(server, f"{what} must be a table of strings, not {_json_type(value)}")
            return None
        out: dict[str, str] = {}
        for key, item in value.items():
            if isinstance(item, int | float) and not isinstance(item, bool):
                item = str(item)
            text = self.text(server, f"{what}.{key}", item)
            if text is None:
                return None
            out[str(key)] = text
        return out

    def server(self, name: Any, raw: Any) -> ServerSpec | None:
        if not isinstance(name, str) or not name.strip():
            self.problem("", f"a server name must be a non-empty string, not {name!r}")
            return None
        if not isinstance(raw, Mapping):
            self.problem(name, f"expected a table, not {_json_type(raw)}")
            return None
        kind = raw.get("type", raw.get("transport"))
        if kind is not None and not isinstance(kind, str):
            self.problem(name, f"type must be a string, not {_json_type(kind)}")
            return None
        kind = (kind or ("stdio" if "command" in raw or "url" not in raw else "http")).lower()
        if kind == "sdk" and self.allow_sdk:
            return ServerSpec(name, "sdk", self.source)
        if kind == "stdio":
            if "command" not in raw:
                self.problem(name, 'a stdio server needs "command" (or "url" for a remote server)')
                return None
            command = self.text(name, "command", raw["command"])
            args = self.strings(name, "args", raw.get("args"))
            env = self.table(name, "env", raw.get("env"))
            cwd = raw.get("cwd")
            cwd_text = self.text(name, "cwd", cwd) if cwd is not None else None
            if command is None or args is None or env is None or (cwd and cwd_text is None):
                return None
            if not command.strip():
                self.problem(name, "command is empty")
                return None
            return ServerSpec(name, "stdio", self.source, command, args, env, cwd_text)
        if kind in _HTTP_TYPES or kind == "sse":
            if "url" not in raw:
                self.problem(name, f'a {kind} server needs "url"')
                return None
            url = self.text(name, "url", raw["url"])
            headers = self.table(name, "headers", raw.get("headers"))
            if url is None or headers is None:
                return None
            if not url.startswith(("http://", "https://")):
                self.problem(name, f"url must start with http:// or https://, not {url!r}")
                return None
            transport: Transport = "sse" if kind == "sse" else "http"
            return ServerSpec(name, transport, self.source, url=url, headers=headers)
        self.problem(name, f"unknown type {kind!r} (expected stdio, http or sse)")
        return None

    def servers(self, raw: Any) -> list[ServerSpec]:
        if not isinstance(raw, Mapping):
            self.problem("", f"the servers must be a table, not {_json_type(raw)}")
            return []
        specs = [self.server(name, entry) for name, entry in raw.items()]
        return [s for s in specs if s is not None]


def parse_servers(
    raw: Any,
    source: str,
    env: Mapping[str, str] | None = None,
    *,
    allow_sdk: bool = False,
    withheld: frozenset[str] = frozenset(),
) -> tuple[list[ServerSpec], list[McpProblem]]:
    """`allow_sdk`: `{"type": "sdk"}` servers are accepted (only --mcp-config, from the SDK)."""
    reader = _Reader(source, os.environ if env is None else env, allow_sdk, withheld)
    specs = reader.servers(raw)
    return specs, reader.problems


def read_mcp_json(
    path: Path, env: Mapping[str, str] | None = None, *, confined: bool = False
) -> tuple[list[ServerSpec], list[McpProblem]]:
    """Claude Code's project file: `{"mcpServers": {NAME: {...}}}`. A missing file is no problem.
    `confined` (a headless run in a folder nobody trusted): `${VAR}` never expands one of the
    credentials lathe keeps from its children (they stay as written, with a warning), so the
    repository's own program or URL is not handed the user's key."""
    source = str(path)
    environ = os.environ if env is None else env
    withheld: frozenset[str] = frozenset()
    if confined:
        withheld = frozenset(k for k, v in environ.items() if is_secret(k, v))
        env = {k: v for k, v in environ.items() if k not in withheld}
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], []
    except (OSError, UnicodeDecodeError) as exc:
        return [], [McpProblem(source, "", f"cannot read the file: {exc}")]
    try:
        data = jsonlimits.loads(text, source)
    except jsonlimits.JsonLimitError as exc:
        return [], [McpProblem(source, "", f"not valid JSON: {exc.msg} (line {exc.lineno})")]
    except json.JSONDecodeError as exc:
        return [], [McpProblem(source, "", f"not valid JSON: {exc.msg} (line {exc.lineno})")]
    if not isinstance(data, Mapping) or "mcpServers" not in data:
        return [], [McpProblem(source, "", 'expected an object with "mcpServers"')]
    return parse_servers(data["mcpServers"], source, env, withheld=withheld)


def load_mcp_config(
    settings_servers: Mapping[str, Any] | None,
    project_dir: str | Path | None,
    env: Mapping[str, str] | None = None,
    *,
    trusted: bool = True,
    confined: bool = False,
) -> McpConfig:
    """Every configured server. The first source naming a server wins, in the order: lathe's
    settings, `~/.claude.json`'s local scope (this project), `.mcp.json` (project scope), then
    `~/.claude.json`'s user scope (Claude Code's precedence: local > project > user).

    `.mcp.json` starts programs chosen by whoever wrote the repository, so it is read only for a
    trusted project; otherwise its servers are skipped with a warning.
    """
    from app.mcp.claude_json import claude_json_path, claude_json_servers

    environ = os.environ if env is None else env
    config = McpConfig()
    specs, problems = parse_servers(settings_servers or {}, SETTINGS_LABEL, environ)
    config.servers.extend(specs)
    config.problems.extend(problems)
    user, local, warning = claude_json_servers(project_dir, environ)
    if warning:
        config.problems.append(McpProblem(warning, "", "ignored", "warning"))
    cc_label = str(claude_json_path(environ))
    specs, problems = parse_servers(local, f"{cc_label} (local scope)", environ)
    config.problems.extend(problems)
    _add(config, specs, f"{cc_label} (local scope)")
    if project_dir is not None:
        path = Path(project_dir) / MCP_JSON
        if not trusted:
            if path.is_file():
                config.problems.append(
                    McpProblem(str(path), "", "skipped: the project is not trusted", "warning")
                )
        else:
            specs, problems = read_mcp_json(path, environ, confined=confined)
            config.problems.extend(problems)
            _add(config, _not_plugin_names(specs, config, str(path)), str(path))
    specs, problems = parse_servers(user, f"{cc_label} (user scope)", environ)
    config.problems.extend(problems)
    _add(config, specs, f"{cc_label} (user scope)")
    return config


_NOT_API = re.compile(r"[^a-zA-Z0-9_-]")


def api_server_name(name: str) -> str:
    """The server's name in its tools' names (`my.srv` -> `mcp__my_srv__*`), as
    app/mcp/bridge.normalize_name makes it (kept here: reading config loads no MCP SDK)."""
    return _NOT_API.sub("_", name) or "_"


def _not_plugin_names(specs: list[ServerSpec], config: McpConfig, source: str) -> list[ServerSpec]:
    """A checked-in server named `plugin_x_y` (or `plugin.x.y`) would carry the tool names of
    plugin x's server y (`mcp__plugin_x_y__*`) and ride on the user's rules for it: the
    `plugin_` prefix is left to plugins (the user's own settings may still use it)."""
    out = []
    for spec in specs:
        if api_server_name(spec.name).lower().startswith("plugin_"):
            why = "ignored: names starting with plugin_ carry plugins' tool names (mcp__plugin_*)"
            config.problems.append(McpProblem(source, spec.name, why, "warning"))
            continue
        out.append(spec)
    return out


def _add(config: McpConfig, specs: list[ServerSpec], source: str) -> None:
    # Servers are told apart by the name their tools carry: a checked-in `my.srv` beside the
    # user's `my_srv` would put its tools under `mcp__my_srv__*`, which the user's rules allow.
    taken = {api_server_name(s.name): s for s in config.servers}
    for spec in specs:
        first = taken.get(api_server_name(spec.name))
        if first is not None:
            what = "defines it too" if first.name == spec.name else f"defines {first.name!r}"
            why = f"ignored: {first.source} {what}"
            if first.name != spec.name:
                why += f", whose tools have the same names (mcp__{api_server_name(spec.name)}__*)"
            config.problems.append(McpProblem(source, spec.name, why, "warning"))
            continue
        taken[api_server_name(spec.name)] = spec
        config.servers.append(spec)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    return type(value).__name__
