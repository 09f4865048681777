"""The resume picker: choose one of this folder's past sessions, as Claude Code's /resume does:
a search field on top, each session as its first prompt with when, branch and size below it.

Focus stays in the search field: typing filters (every word must match the first prompt, the
branch or the id), Up/Down move through the list, Enter resumes, Esc clears the search or closes.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from app.tui.ports import SessionSummary

HINT = "Type to search · ↑↓ choose · Enter resume · Esc close"


def matches(session: SessionSummary, query: str) -> bool:
    haystack = f"{session.title}\n{session.branch}\n{session.session_id}".casefold()
    return all(word in haystack for word in query.casefold().split())


def session_label(session: SessionSummary) -> Text:
    label = Text(session.title or "(untitled)", style="bold", no_wrap=True, overflow="ellipsis")
    details = [session.updated, session.branch, _count(session.messages)]
    label.append("\n" + " · ".join(d for d in details if d), style="dim")
    return label


# (unit, its length in seconds, the age from which the next unit is used)
_UNITS = (("second", 1, 60), ("minute", 60, 3600), ("hour", 3600, 86400), ("day", 86400, 2592000))


def relative_time(then: float, now: float) -> str:
    """ "14 seconds ago", "3 minutes ago", "2 days ago"; from 30 days on, the date."""
    seconds = max(0, int(now - then))
    for unit, size, limit in _UNITS:
        if seconds < limit:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return time.strftime("%Y-%m-%d", time.localtime(then))


def _count(messages: int) -> str:
    return f"{messages} message{'s' if messages != 1 else ''}"


# The dialog's rows other than the list (resume.tcss): its border (2), the title (1), the search
# field and its margin (3 + 1), the list's margin (1), the hint and its margin (1 + 1).
_DIALOG_ROWS = 10


class ResumeScreen(ModalScreen[str | None]):
    CSS_PATH = "resume.tcss"
    BINDINGS = [
        Binding("escape", "clear_or_close", "Close", id="resume.cancel"),
        Binding("down", "move(1)", "Down", show=False, priority=True),
        Binding("up", "move(-1)", "Up", show=False, priority=True),
        Binding("pagedown", "move(5)", show=False, priority=True),
        Binding("pageup", "move(-5)", show=False, priority=True),
    ]

    def __init__(self, sessions: Sequence[SessionSummary]) -> None:
        super().__init__()
        self.sessions = list(sessions)
        self.shown: list[SessionSummary] = list(self.sessions)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Resume a session", style="bold"), id="title")
            yield Input(placeholder="Search…", id="search")
            yield Static("", id="empty")
            sessions = OptionList(id="sessions")
            sessions.can_focus = False  # typing goes to the search field
            yield sessions
            yield Static(HINT, id="hint")

    def on_mount(self) -> None:
        self._fill()
        self._fit_list(self.app.size.height)
        self.query_one("#search", Input).focus()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_list(event.size.height)

    def _fit_list(self, height: int) -> None:
        """The list at most the rows left under the title and search and above the hint, so a
        long list scrolls inside the dialog instead of pushing the key hint under its bottom
        border (tui-r5 F9: `max-height: 1fr` does not bound a child of an auto-height box)."""
        self.option_list.styles.max_height = max(2, height - _DIALOG_ROWS)

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#sessions", OptionList)

    def _fill(self, query: str = "") -> None:
        self.shown = [s for s in self.sessions if matches(s, query)]
        options = self.option_list
        options.clear_options()
        for index, session in enumerate(self.shown):
            if index:
                options.add_option(None)
            options.add_option(Option(session_label(session), id=session.session_id))
        if self.shown:
            options.highlighted = 0
        empty = self.query_one("#empty", Static)
        if not self.sessions:
            empty.update("No earlier sessions in this folder.")
        elif not self.shown:
            empty.update(f"No session matches “{query.strip()}”.")
        else:
            empty.update("")
        empty.display = not self.shown
        options.display = bool(self.shown)

    @on(Input.Changed, "#search")
    def _search(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted, "#search")
    def _enter(self) -> None:
        option = self.option_list.highlighted_option
        if option is not None:
            self.dismiss(option.id)

    @on(OptionList.OptionSelected, "#sessions")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_move(self, step: int) -> None:
        options = self.option_list
        for _ in range(abs(step)):
            if step > 0:
                options.action_cursor_down()
            else:
                options.action_cursor_up()

    def action_clear_or_close(self) -> None:
        search = self.query_one("#search", Input)
        if search.value:
            search.value = ""
            return
        self.dismiss(None)
