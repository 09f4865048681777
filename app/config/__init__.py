"""Settings: pydantic models, the sources with their precedence, and loading."""

from app.config.loader import (
    PROJECT_SOURCES,
    SOURCE_LABELS,
    SOURCE_ORDER,
    CliOverrides,
    LoadedSettings,
    LoadedSource,
    SettingsProblem,
    format_problems,
    load_settings,
    load_settings_file,
)
from app.config.models import PERMISSION_MODES, PermissionMode, PermissionsSettings, Settings
from app.config.paths import config_dir, home_dir, policy_file, project_dir, state_dir

__all__ = [
    "PERMISSION_MODES",
    "PROJECT_SOURCES",
    "SOURCE_LABELS",
    "SOURCE_ORDER",
    "CliOverrides",
    "LoadedSettings",
    "LoadedSource",
    "PermissionMode",
    "PermissionsSettings",
    "Settings",
    "SettingsProblem",
    "config_dir",
    "format_problems",
    "home_dir",
    "load_settings",
    "load_settings_file",
    "policy_file",
    "project_dir",
    "state_dir",
]
