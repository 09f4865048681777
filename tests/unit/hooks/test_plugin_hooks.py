"""A plugin's hook tables (app/config/plugins.py), from real files: hooks/hooks.json and the
manifest's `hooks` (a table, a path, a list), each handler carrying the plugin's
CLAUDE_PLUGIN_ROOT / CLAUDE_PLUGIN_DATA, and the problems a broken entry makes."""

from __future__ import annotations

import json
from pathlib import Path

from app.config.hooks import parse_hook_sources
from app.config.plugins import data_dir, load_plugins, plugin_hook_sources


def _hook(text: str) -> dict:
    return {"PreToolUse": [{"hooks": [{"type": "command", "command": text}]}]}


def test_every_hook_table_of_a_plugin_runs_with_its_folders(tmp_path: Path):
    root = tmp_path / "my plug"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": _hook("${CLAUDE_PLUGIN_ROOT}/a")})
    )
    (root / "more.json").write_text(json.dumps(_hook("b")))  # the table alone, no "hooks" key
    manifest = {
        "name": "My.Plug",
        "hooks": ["./hooks/hooks.json", "./more.json", {"hooks": _hook("c")}, "./gone.json", 7],
    }
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    claude = tmp_path / "claude"
    plugins, problems = load_plugins(claude, [], [str(root)])
    assert problems == []
    [plugin] = plugins
    assert (
        plugin.data
        == data_dir(claude, "My.Plug@inline")
        == claude / "plugins" / "data" / "My-Plug-inline"
    )
    found: list[str] = []
    config = parse_hook_sources(plugin_hook_sources(plugins, found), trusted=False)
    # hooks/hooks.json once, though the manifest names it too; the missing file and the number
    # are problems; the others load (a plugin's hooks run in an untrusted folder too).
    assert [h.command for h in config.handlers] == [f"{root}/a", "b", "c"]
    assert len(found) == 2 and "gone.json" in found[0] and "7" in found[1]
    env = {"CLAUDE_PLUGIN_ROOT": str(root), "CLAUDE_PLUGIN_DATA": str(plugin.data)}
    assert all(dict(h.env) == env for h in config.handlers)
    assert plugin.data is not None and plugin.data.is_dir()  # made before a hook can run
