"""One tool call's whole output in its own scrollable view: every line, long lines wrapped.

Opened from a tool block (`o`). When the output was spilled to a file (a large Bash output), the
file is read in a worker thread, so the UI loop never waits on the disk; until then the text the
block had is shown.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from widgets.counts import plural

# A view is for reading: a file past this is shown up to here, with a note.
MAX_FILE_CHARS = 5_000_000


class OutputView(ModalScreen[None]):
    DEFAULT_CSS = """
    OutputView { background: $background; }
    OutputView #output-title { height: 1; padding: 0 1; background: $panel; color: $foreground; }
    OutputView #output-scroll { height: 1fr; padding: 0 1; }
    OutputView #output-text { height: auto; }
    """
    BINDINGS = [
        Binding("escape,q,o", "close", "Close"),
        Binding("pageup", "scroll('page_up')", "Page up", show=False),
        Binding("pagedown", "scroll('page_down')", "Page down", show=False),
        Binding("home", "scroll('scroll_home')", "Top", show=False),
        Binding("end", "scroll('scroll_end')", "Bottom", show=False),
    ]

    def __init__(self, title: str, text: str, full_path: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.full_path = full_path

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="output-title")
        with VerticalScroll(id="output-scroll"):
            yield Static(self._body(self.text), id="output-text")
        yield Footer()

    def _title(self) -> Text:
        lines = self.text.count("\n") + 1 if self.text else 0
        title = Text(self.title_text, style="bold", no_wrap=True, overflow="ellipsis")
        title.append(f"  {plural(lines, 'line')}", style="dim")
        return title

    @staticmethod
    def _body(text: str) -> Text:
        return Text(text.rstrip("\n"), no_wrap=False, overflow="fold")

    def on_mount(self) -> None:
        self.query_one("#output-scroll", VerticalScroll).focus()
        if self.full_path:
            self._read_full(self.full_path)

    @work(thread=True, exclusive=True)
    def _read_full(self, path: str) -> None:
        try:
            with Path(path).open(encoding="utf-8", errors="replace") as handle:
                text = handle.read(MAX_FILE_CHARS + 1)
        except OSError:
            return  # the block's text stays: it is what the model saw
        if len(text) > MAX_FILE_CHARS:
            text = text[:MAX_FILE_CHARS] + f"\n… cut at {MAX_FILE_CHARS:,} characters ({path})"
        self.app.call_from_thread(self._show, text)

    def _show(self, text: str) -> None:
        self.text = text
        self.query_one("#output-text", Static).update(self._body(text))
        self.query_one("#output-title", Static).update(self._title())

    def action_scroll(self, how: str) -> None:
        getattr(self.query_one("#output-scroll", VerticalScroll), how)(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
