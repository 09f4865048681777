"""An answer's markdown as a plain Rich renderable (the conversation's archive, a resumed
history), in the theme's colours: its markdown.* styles come from the theme (themes/styles.py),
and its code blocks take a light or dark palette as the theme is light or dark."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.style import Style

from themes.styles import DARK_MARKER, is_dark
from widgets.markdown_render import LinkedMarkdown

# Pygments palettes for code blocks (names, not colours: Rich's Syntax draws them).
DARK_CODE, LIGHT_CODE = "monokai", "default"


class FrozenMarkdown:
    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        dark = is_dark(console.get_style(DARK_MARKER, default=Style()))
        # With each link's URL after its text (widgets/markdown_render.py).
        yield LinkedMarkdown(self.text, code_theme=DARK_CODE if dark else LIGHT_CODE)
