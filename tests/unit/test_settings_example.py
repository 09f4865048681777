"""settings.example.toml documents real keys: it loads without a single problem."""

from __future__ import annotations

from pathlib import Path

from app.config import load_settings_file
from app.config.hooks import parse_hook_sources
from app.mcp.config import parse_servers

EXAMPLE = Path(__file__).resolve().parents[2] / "settings.example.toml"


def test_example_settings_load_cleanly() -> None:
    settings, exists, problems = load_settings_file(EXAMPLE, "user")
    assert exists and settings is not None
    assert [str(p) for p in problems] == []
    assert settings.permissions.allow and settings.permissions.deny and settings.permissions.ask
    hooks = parse_hook_sources([("user", str(EXAMPLE), settings.hooks)], trusted=True)
    assert not hooks.problems and len(hooks.handlers) == 2
    servers, server_problems = parse_servers(
        settings.mcp.servers, str(EXAMPLE), {"HOME": "/h", "SEARCH_TOKEN": "t"}
    )
    assert not server_problems and {s.name for s in servers} == {"files", "search"}
    assert settings.keymap and settings.progress_panel == "bottom"
    assert settings.theme == "lathe-dark" and settings.mouse is True
    context = settings.context
    assert context.window is None and context.auto_compact_threshold == 0.9
    assert context.auto_compact and context.clear_tool_results and not context.extended_window
    assert settings.passthrough_env == []
    assert settings.cleanup_period_days == 30
