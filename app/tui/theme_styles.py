"""The theme's colours for Rich renderables: lathe's named styles (themes/styles.py) on the App's
console, replaced on every theme change, and every block redrawn in them.

CSS follows a theme change by itself; Rich renderables do not: a Static keeps the Content its
Text was converted to, and the conversation's archive keeps rendered lines. Both are redone here.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widgets import Static

from themes.styles import rich_theme
from widgets.conversation import ArchiveView


class ThemeStyles:
    """Owns the one Rich theme the App's console carries for lathe's roles."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self._pushed = False

    def install(self) -> None:
        """Push the current theme's roles onto the console (replacing the previous ones)."""
        console = self.app.console
        if self._pushed:
            console.pop_theme()
        theme = self.app.current_theme
        console.push_theme(rich_theme(self.app.get_css_variables(), dark=theme.dark))
        self._pushed = True

    def repaint(self) -> None:
        """Redraw what holds converted Rich styles: every Static's content, archived lines."""
        self.install()
        for screen in self.app.screen_stack:
            for widget in screen.query("*"):
                if isinstance(widget, Static):
                    widget.update(widget.content)
                if isinstance(widget, ArchiveView):
                    widget.restyle()
                widget.refresh()
