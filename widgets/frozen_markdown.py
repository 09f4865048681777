"""An answer's markdown as a plain Rich renderable (the conversation's archive, a resumed
history), in the theme's colours: its markdown.* styles come from the theme (themes/styles.py),
and so do its code blocks' colours (each token kind's `lathe.code.*` role, as a Bash label's),
so a light theme and a dark one each paint code their own readable way."""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.style import Style
from rich.syntax import ANSISyntaxTheme, SyntaxTheme

from widgets.code_label import TOKEN_ROLES
from widgets.markdown_render import LinkedMarkdown


def code_theme(console: Console) -> SyntaxTheme:
    """The code blocks' palette from the console's theme (the App pushes the current Textual
    theme's roles onto it, app/tui/theme_styles.py): no fixed Pygments palette. A token kind
    with no role, or a console lathe did not set up, keeps the block's own colour."""
    styles: dict[Any, Style] = {
        token: console.get_style(role, default=Style.null()) for token, role in TOKEN_ROLES
    }
    return ANSISyntaxTheme(styles)


class FrozenMarkdown:
    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # With each link's URL after its text (widgets/markdown_render.py); Rich's code blocks
        # take a SyntaxTheme as well as a Pygments name.
        yield LinkedMarkdown(self.text, code_theme=code_theme(console))
