"""A plugin's MCP servers as Claude Code 2.1.332 reads them (app/mcp/plugin_servers.py), on real
plugin folders: `.mcp.json` in both shapes, the manifest's `mcpServers` (a table or a path inside
the plugin), names `plugin:PLUGIN:SERVER`, `${CLAUDE_PLUGIN_ROOT}` expanded."""

from __future__ import annotations

import json
from pathlib import Path

from app.config.plugins import Plugin
from app.mcp.bridge import mcp_tool_name
from app.mcp.config import McpConfig
from app.mcp.plugin_servers import plugin_servers, with_plugin_servers


def _plugin(root: Path, manifest: dict, mcp_json: object = None) -> Plugin:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "kit", **manifest}))
    if mcp_json is not None:
        (root / ".mcp.json").write_text(json.dumps(mcp_json))
    return Plugin("kit", root, "cli")


def test_both_mcp_json_shapes_and_the_manifest_table(tmp_path):
    a = _plugin(tmp_path / "a", {}, {"mcpServers": {"s1": {"command": "${CLAUDE_PLUGIN_ROOT}/x"}}})
    b = _plugin(
        tmp_path / "b",
        {"mcpServers": {"s3": {"url": "https://h/${CLAUDE_PLUGIN_ROOT}"}}},
        {"s2": {"command": "y", "args": ["$CLAUDE_PLUGIN_ROOT/c"]}},
    )
    found = plugin_servers([a, b], {})
    assert found.problems == []
    by_name = {s.name: s for s in found.servers}
    assert sorted(by_name) == ["plugin:kit:s1", "plugin:kit:s2", "plugin:kit:s3"]
    assert by_name["plugin:kit:s1"].command == f"{tmp_path / 'a'}/x"
    assert by_name["plugin:kit:s1"].env["CLAUDE_PLUGIN_ROOT"] == str(tmp_path / "a")
    assert by_name["plugin:kit:s2"].args == (f"{tmp_path / 'b'}/c",)
    assert by_name["plugin:kit:s3"].url == f"https://h/{tmp_path / 'b'}"
    assert mcp_tool_name("plugin:kit:s1", "hi") == "mcp__plugin_kit_s1__hi"


def test_a_manifest_path_inside_the_plugin_is_read_and_one_outside_refused(tmp_path):
    (tmp_path / "outside.json").write_text(json.dumps({"evil": {"command": "x"}}))
    inside = _plugin(tmp_path / "in", {"mcpServers": "./conf/servers.json"})
    (inside.root / "conf").mkdir()
    (inside.root / "conf" / "servers.json").write_text(
        json.dumps({"mcpServers": {"ok": {"command": "c"}}})
    )
    outside = _plugin(tmp_path / "out", {"mcpServers": "../outside.json"})
    found = plugin_servers([inside, outside], {})
    assert [s.name for s in found.servers] == ["plugin:kit:ok"]
    assert any("outside" in str(p) for p in found.problems)


def test_a_broken_mcp_json_is_a_problem_and_the_users_servers_stay(tmp_path):
    root = _plugin(tmp_path / "p", {})
    (root.root / ".mcp.json").write_text("{not json")
    out = with_plugin_servers(McpConfig(), [root], {})
    assert out.servers == [] and len(out.problems) == 1
    assert "skipped" in str(out.problems[0])
