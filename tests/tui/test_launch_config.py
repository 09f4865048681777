"""make_config reads what the first frame needs from the real settings files: theme, keymap,
progress-panel placement, and the reloader watching the same files."""

from __future__ import annotations

from pathlib import Path

from app.cli import parse_args
from app.compose_tui import FileSettingsWatch, make_config


def test_settings_give_theme_keymap_and_placement(project: Path) -> None:
    (project / ".git").mkdir()
    user = Path.home() / ".config" / "lathe" / "settings.toml"
    user.parent.mkdir(parents=True)
    user.write_text(
        'theme = "lathe-steel"\n[keymap]\ncycle_mode = "ctrl+t"\ninterrupt_esc = "f9"\n'
    )
    local = project / ".lathe" / "settings.local.toml"
    local.parent.mkdir()
    local.write_text('progress_panel = "top"\n[keymap]\ninterrupt_esc = "ctrl+g"\n')
    extra = project / "extra.toml"
    extra.write_text("")
    config = make_config(parse_args(["--settings", str(extra)]), cwd=project)
    assert config.theme == "lathe-steel"
    assert config.keymap == {"cycle_mode": "ctrl+t", "interrupt_esc": "ctrl+g"}
    assert config.progress_placement == "top"
    watch = config.settings_watch
    assert isinstance(watch, FileSettingsWatch)
    assert extra.resolve() in watch.reloader.paths()
    assert local in watch.reloader.paths()


def test_broken_settings_fall_back_to_defaults(project: Path) -> None:
    (project / ".git").mkdir()
    bad = project / ".lathe" / "settings.toml"
    bad.parent.mkdir()
    bad.write_text("theme = [\n")
    config = make_config(parse_args([]), cwd=project)
    assert config.theme == "lathe-dark" and config.keymap == {}
    # ... and the App is told to block on the broken file first.
    assert config.settings_problems and f"{bad}:2" in config.settings_problems[0]
    assert config.check_settings is not None and config.check_settings()
    bad.write_text('theme = "lathe-dark"\n')
    assert config.check_settings() == []
