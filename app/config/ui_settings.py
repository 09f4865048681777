"""Saving a UI choice (the theme, mouse capture) into the user's settings file,
`$LATHE_CONFIG_DIR/settings.toml` (CONTRACT.md's user settings), so a restart restores it.

The file is the user's: tomlkit edits the one top-level key and keeps everything else byte for
byte (comments, order, other settings). The new text is written to a temporary file beside it and
renamed over it, so a crash mid-write leaves the old file, never half of one. A file that is not
valid TOML is left alone: the choice is then not saved, and the message says why.
"""

from __future__ import annotations

from pathlib import Path

from app.config.paths import config_dir
from app.config.replace_file import replace_file

# The settings a front end may save, and the type each takes (models.Settings has them all).
UI_KEYS: dict[str, type] = {"theme": str, "mouse": bool}


class UiSettingError(Exception):
    """The choice could not be saved (the message names the file and why)."""


def user_settings_path() -> Path:
    return config_dir() / "settings.toml"


def save_ui_setting(key: str, value: str | bool, path: Path | None = None) -> Path:
    """Set top-level `key = value` in the user's settings file; returns the file written."""
    expected = UI_KEYS.get(key)
    if expected is None or not isinstance(value, expected):
        raise UiSettingError(f"{key!r} is not a UI setting lathe saves")
    path = path or user_settings_path()
    # A settings file linked from a dotfiles repo stays a link: the file it points to is rewritten.
    if path.is_symlink():
        path = path.resolve()
    try:
        original = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        original = ""
    except OSError as exc:
        raise UiSettingError(f"{path}: cannot read: {exc.strerror or exc}") from None
    import tomlkit  # only needed when a choice is saved: kept off the start-up path
    from tomlkit.exceptions import TOMLKitError

    try:
        doc = tomlkit.parse(original)
    except TOMLKitError as exc:
        raise UiSettingError(f"{path}: not valid TOML, not changed ({exc})") from None
    if doc.get(key) == value:
        return path
    doc[key] = value
    try:
        replace_file(path, tomlkit.dumps(doc))
    except OSError as exc:
        raise UiSettingError(f"{path}: cannot write: {exc.strerror or exc}") from None
    return path
