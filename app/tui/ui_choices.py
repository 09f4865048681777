"""The UI choices a user makes on screen -- the theme (/theme, the palette's picker) and mouse
capture (F2) -- kept in the user's settings file, so the next start opens the same way.

A choice is saved only when it differs from what the settings already say: applying the
settings' own theme at start-up, or after a reload, writes nothing. The composition root gives
the App the saver (TuiConfig.save_setting); without one (tests, a broken config folder) choices
last for the session only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.tui.app import LatheApp


class UiChoices:
    def __init__(self, app: LatheApp) -> None:
        self.app = app
        # What the settings files say now; a change away from it is the user's choice.
        self.known: dict[str, str | bool] = {
            "theme": app.config.theme,
            "mouse": app.config.mouse_captured,
        }
        self.saved_to = ""  # the file the last choice went to ("" while none was saved)

    def settings_say(self, key: str, value: str | bool) -> None:
        """A reload of the settings files found `key = value` (nothing to save)."""
        self.known[key] = value

    def chose(self, key: str, value: str | bool) -> None:
        if self.known.get(key) == value:
            return
        self.known[key] = value
        save = self.app.config.save_setting
        if save is None:
            return
        problem = save(key, value)
        if problem:
            self.saved_to = ""
            self.app.notice(f"Not saved for next time: {problem}", "warning")
        else:
            self.saved_to = self.app.config.settings_file
