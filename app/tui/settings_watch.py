"""Live settings reload, for the App: the logic lives below the TUI, in app/config/watch.py (the
files and the watch loop) and app/permissions/reload.py (what changed, the rebuilt rules)."""

from __future__ import annotations

from app.config.watch import keymap_from, theme_from, watch_roots, watch_settings
from app.permissions.reload import (
    SettingsChange,
    SettingsReloader,
    SettingsState,
    describe_rules,
    merge_live,
    problems_of,
)

__all__ = [
    "SettingsChange",
    "SettingsReloader",
    "SettingsState",
    "describe_rules",
    "keymap_from",
    "merge_live",
    "problems_of",
    "theme_from",
    "watch_roots",
    "watch_settings",
]
