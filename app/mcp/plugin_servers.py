"""The MCP servers a Claude Code plugin brings (app/config/plugins.py finds the plugins).

As Claude Code 2.1.332 reads them (measured with `--plugin-dir`): the plugin's `.mcp.json`
(`{"mcpServers": {...}}`, or the servers' table alone, as the plugin docs write it) and its
manifest's `mcpServers` (a table, or the path of such a file inside the plugin). A server is named
`plugin:PLUGIN:SERVER`, so its tools are `mcp__plugin_PLUGIN_SERVER__TOOL` (the bridge turns `:`
into `_`), and two plugins never clash with each other or with the user's servers.
`${CLAUDE_PLUGIN_ROOT}` in any string is the plugin's folder, and a local server is started with
`CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA` set, as Claude Code starts it. The plugins themselves are already gated (a
project enables plugins only when trusted), so their servers need no other trust.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from app import jsonlimits
from app.config.plugins import MANIFEST, Plugin, ensure_data, with_plugin_root
from app.mcp.config import (
    MCP_JSON,
    McpConfig,
    McpProblem,
    ServerSpec,
    api_server_name,
    parse_servers,
)


def _json_file(path: Path, problems: list[McpProblem]) -> Any:
    try:
        return jsonlimits.loads(path.read_text(encoding="utf-8"), str(path))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        problems.append(McpProblem(str(path), "", f"skipped: {reason}"))
        return None


def _tables(plugin: Plugin, problems: list[McpProblem]) -> list[tuple[str, Any]]:
    """Each (source, servers table) the plugin declares."""
    out: list[tuple[str, Any]] = []
    mcp_json = plugin.root / MCP_JSON
    data = _json_file(mcp_json, problems)
    if isinstance(data, Mapping):
        out.append((str(mcp_json), data.get("mcpServers", data)))
    elif data is not None:
        problems.append(McpProblem(str(mcp_json), "", "skipped: not a JSON object"))
    manifest = plugin.root / MANIFEST
    declared = _json_file(manifest, [])
    inline = declared.get("mcpServers") if isinstance(declared, Mapping) else None
    if isinstance(inline, str):
        # A path inside the plugin; one that leaves it is refused (it names someone else's file).
        target = (plugin.root / inline).resolve()
        if not target.is_relative_to(plugin.root.resolve()):
            problems.append(McpProblem(str(manifest), "", f"mcpServers {inline!r} is outside"))
        elif target != mcp_json.resolve():
            data = _json_file(target, problems)
            if isinstance(data, Mapping):
                out.append((str(target), data.get("mcpServers", data)))
    elif isinstance(inline, Mapping):
        out.append((f"{manifest} mcpServers", inline))
    return out


def plugin_servers(plugins: Iterable[Plugin], env: Mapping[str, str]) -> McpConfig:
    out = McpConfig()
    for plugin in plugins:
        root = os.fspath(plugin.root)
        for source, table in _tables(plugin, out.problems):
            environ = {**env, **plugin.env()}
            specs, problems = parse_servers(with_plugin_root(table, root), source, environ)
            out.problems.extend(problems)
            for spec in specs:
                ensure_data(plugin)
                out.servers.append(_named(spec, plugin))
    return out


def _named(spec: ServerSpec, plugin: Plugin) -> ServerSpec:
    name = f"plugin:{plugin.name}:{spec.name}"
    if spec.transport != "stdio":
        return replace(spec, name=name)
    return replace(spec, name=name, env={**plugin.env(), **spec.env})


def with_plugin_servers(
    config: McpConfig, plugins: Iterable[Plugin], env: Mapping[str, str]
) -> McpConfig:
    """The session's servers and its plugins' (a later name clash, one plugin's two files naming
    one server, keeps the first)."""
    found = plugin_servers(plugins, env)
    out = McpConfig(list(config.servers), [*config.problems, *found.problems])
    # Told apart by the name their tools carry (`plugin:a:b` and a server `plugin_a_b` share
    # `mcp__plugin_a_b__*`), as app/mcp/config._add does.
    taken = {api_server_name(s.name) for s in out.servers}
    for spec in found.servers:
        if api_server_name(spec.name) in taken:
            out.problems.append(
                McpProblem(spec.source, spec.name, "ignored: defined twice", "warning")
            )
            continue
        taken.add(api_server_name(spec.name))
        out.servers.append(spec)
    return out
