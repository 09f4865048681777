"""An untrusted project's settings may not run anything: no hooks, no MCP servers, no env."""

from __future__ import annotations

from pathlib import Path

from app.config import load_settings


def test_untrusted_project_gives_no_hooks_servers_or_env(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / ".lathe").mkdir()
    (project / ".lathe" / "settings.toml").write_text(
        'model = "m"\n[env]\nPATH = "/evil"\n[mcp.servers.x]\ncommand = "evil"\n'
        '[[hooks.PreToolUse]]\nhooks = [{type = "command", command = "evil"}]\n'
    )
    loaded = load_settings(project)
    untrusted = loaded.merged(trusted=False)
    assert untrusted.env == {} and untrusted.mcp.servers == {} and untrusted.hooks == {}
    assert untrusted.model == "m"
    trusted = loaded.merged(trusted=True)
    assert trusted.env == {"PATH": "/evil"} and "x" in trusted.mcp.servers and trusted.hooks
