"""The welcome line at the top of the first screen: the model, the folder, and the keys that
matter, in one line of plain words.

    Welcome to lathe · claude-sonnet-4-5 · ~/work/demo · / commands · Shift+Tab mode · Esc interrupt

It is a plain renderable (it sits in the conversation's archive, above any resumed history, and
scrolls away with it), drawn to the width it gets. The first three keys always show: where they do
not fit, "Welcome to" goes first, then the key names shorten (Shift+Tab -> ⇧Tab, Ctrl+Q -> ^Q),
then the folder (…/demo, as the status bar does), and at last the keys wrap to a second line (60
columns). Keys after the third are left out when they do not fit, least important first.
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
# The keys the line never drops: commands, the mode, interrupting.
MUST_KEYS = 3
SEP = " · "


def short_key(key: str) -> str:
    """The short spelling of a key: "Shift+Tab" -> "⇧Tab", "Ctrl+Q" -> "^Q"."""
    return key.replace("Ctrl+", "^").replace("Shift+", "⇧")


def short_folder(folder: str) -> str:
    """ "/tmp/a/b/proj" -> "…/proj" (a folder of one part stays whole)."""
    trimmed = folder.rstrip("/")
    if "/" not in trimmed:
        return folder
    return "…/" + trimmed.rsplit("/", 1)[-1]


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
        """The greeting, model and folder, then as many keys as fit, the first three always
        (shortened, or on a second line)."""
        must = min(MUST_KEYS, len(self.keys))
        folder = self.folder
        tries = [
            ("Welcome to lathe", folder, False),
            ("lathe", folder, False),
            ("lathe", folder, True),
            ("lathe", short_folder(folder), True),
        ]
        for greeting, shown_folder, short in tries:
            fitted = self._keys(self._head(greeting, shown_folder), width, short)
            if fitted.keys >= must and fitted.text.cell_len <= width:
                return fitted.text
        return self._wrapped(width, must)

    def _wrapped(self, width: int, must: int) -> Text:
        """Two lines: the greeting, model and folder (shortened if it must), then the keys."""
        head = self._head("lathe", self.folder)
        if head.cell_len > width:
            head = self._head("lathe", short_folder(self.folder))
        head.truncate(width, overflow="ellipsis")
        keys = self._keys(Text(), width, False)
        if keys.keys < must:
            keys = self._keys(Text(), width, True)
        keys.text.truncate(width, overflow="ellipsis")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append_text(head)
        text.append("\n")
        text.append_text(keys.text)
        return text

    def _head(self, greeting: str, folder: str) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(greeting, style="bold")
        for part in (self.model or "default model", folder):
            if part:
                text.append(SEP, style="dim")
                text.append(part)
        return text

    def _keys(self, text: Text, width: int, short: bool) -> _Fitted:
        """`text` with as many keys appended as fit in `width`."""
        text = text.copy()
        fitted = 0
        for key, action in self.keys:
            piece = Text(SEP if text.cell_len else "", style="dim")
            piece.append(short_key(key) if short else key, style="lathe.key")
            piece.append(f" {action}", style="dim")
            if text.cell_len + piece.cell_len > width:
                break
            text.append_text(piece)
            fitted += 1
        return _Fitted(text, fitted)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.line(options.max_width)
