"""The welcome line at the top of the first screen: the model, the folder, and the keys that
matter, in one line of plain words.

    Welcome to lathe · claude-sonnet-4-5 · ~/work/demo · / commands · Shift+Tab mode · Esc interrupt

It is a plain renderable (it sits in the conversation's archive, above any resumed history, and
scrolls away with it), drawn to the width it gets: keys that do not fit are left out, least
important first, so it stays one line from 60 columns up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class _Fitted:
    text: Text
    keys: int


class Welcome:
    def __init__(self, model: str, folder: str, keys: Sequence[tuple[str, str]] = DEFAULT_KEYS):
        self.model = model
        self.folder = folder
        self.keys = tuple(keys)

    def line(self, width: int) -> Text:
        """The greeting, model and folder, then as many keys as fit; where "Welcome to lathe"
        leaves room for fewer than three keys, plain "lathe" greets instead."""
        full = self._line(width, "Welcome to lathe")
        if full.keys >= min(3, len(self.keys)):
            return full.text
        short = self._line(width, "lathe")
        too_long = full.text.cell_len > width
        return short.text if short.keys > full.keys or too_long else full.text

    def _line(self, width: int, greeting: str) -> _Fitted:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(greeting, style="bold")
        fitted = 0
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
            fitted += 1
        return _Fitted(text, fitted)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.line(options.max_width)
