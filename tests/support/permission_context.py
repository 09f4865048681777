"""A permission context loaded from the settings files, for tests of the files' rules."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from app.config import CliOverrides, load_settings
from app.permissions import PermissionContext, context_from_settings, is_trusted


def load_permission_context(
    start_dir: str | Path,
    cli: CliOverrides | None = None,
    env: Mapping[str, str] | None = None,
    trusted: bool | None = None,
) -> PermissionContext:
    """The files loaded and made a context as app/compose.py does (the product has one settings
    load, the composition root's; this is the same two steps for these tests)."""
    loaded = load_settings(start_dir, cli, env)
    if trusted is None:
        trusted = is_trusted(loaded.project_dir, env)
    return context_from_settings(loaded, trusted=trusted, env=env)
