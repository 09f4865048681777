"""The welcome line at the top of the first screen: the model, the folder, and the keys that
matter, in one line of plain words.

    Welcome to lathe · claude-sonnet-4-5 · ~/work/demo · / commands · Shift+Tab mode · Esc interrupt

It is a plain renderable (it sits in the conversation's archive, above any resumed history, and
scrolls away with it), drawn to the width it gets: keys that do not fit are left out, least
important first, so it stays one line from 60 columns up.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

# (key, what it does), most important first.
DEFAULT_KEYS: tuple[tuple[str, str], ...] = (
    ("/", "commands"),
    ("Shift+Tab", "mode"),
    ("Esc", "interrupt"),
    ("Ctrl+Q", "quit"),
    ("Ctrl+P", "palette"),
    ("F2", "mouse"),
)


class Welcome:
    def __init__(self, model: str, folder: str, keys: Sequence[tuple[str, str]] = DEFAULT_KEYS):
        self.model = model
        self.folder = folder
        self.keys = tuple(keys)

    def line(self, width: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("Welcome to lathe", style="bold")
        for part in (self.model or "default model", self.folder):
            if part:
                text.append(" · ", style="dim")
                text.append(part)
        for key, action in self.keys:
            piece = Text(" · ", style="dim")
            piece.append(key, style="lathe.key")
            piece.append(f" {action}", style="dim")
            if text.cell_len + piece.cell_len > width:
                break
            text.append_text(piece)
        return text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.line(options.max_width)
