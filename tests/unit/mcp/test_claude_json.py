"""User- and local-scope MCP servers from Claude Code's `~/.claude.json`."""

from __future__ import annotations

import json
from pathlib import Path

from app.mcp.config import load_mcp_config


def _write(home: Path, data: object) -> None:
    (home / ".claude.json").write_text(json.dumps(data), encoding="utf-8")


def test_user_and_local_scope_servers_load_with_claude_codes_precedence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "proj"
    project.mkdir()
    other = tmp_path / "other"
    _write(
        home,
        {
            "numStartups": 3,
            "mcpServers": {
                "everywhere": {"command": "user-srv"},
                "shared": {"command": "from-user"},
            },
            "projects": {
                str(project): {"mcpServers": {"shared": {"command": "from-local"}}},
                str(other): {"mcpServers": {"elsewhere": {"command": "x"}}},
            },
        },
    )
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"shared": {"command": "from-project"}, "p": {"command": "p"}}})
    )
    config = load_mcp_config({}, project, {"HOME": str(home)}, trusted=True)
    by_name = {s.name: s for s in config.servers}
    assert set(by_name) == {"everywhere", "shared", "p"}  # another project's local one: no
    assert by_name["shared"].command == "from-local"  # local > project > user
    assert by_name["everywhere"].source.endswith(".claude.json (user scope)")
    ignored = [str(p) for p in config.problems if "ignored" in str(p)]
    assert len(ignored) == 2 and all("local scope" in t for t in ignored)


def test_untrusted_project_still_gets_the_users_own_servers(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    _write(home, {"mcpServers": {"mine": {"command": "mine"}}})
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": {"command": "x"}}}))
    config = load_mcp_config({}, tmp_path, {"HOME": str(home)}, trusted=False)
    assert [s.name for s in config.servers] == ["mine"]


def test_claude_config_dir_and_a_broken_file(tmp_path: Path) -> None:
    folder = tmp_path / "cfg"
    folder.mkdir()
    (folder / ".claude.json").write_text("{not json")
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(folder)}
    _write(tmp_path, {"mcpServers": {"home-one": {"command": "x"}}})  # not read: the dir wins
    config = load_mcp_config({"s": {"command": "s"}}, None, env)
    assert [s.name for s in config.servers] == ["s"]
    assert any("not valid JSON" in str(p) and p.severity == "warning" for p in config.problems)
