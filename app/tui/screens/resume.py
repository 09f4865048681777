"""The resume picker: choose one of this folder's past sessions."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from app.tui.ports import SessionSummary


class ResumeScreen(ModalScreen[str | None]):
    CSS_PATH = "resume.tcss"
    BINDINGS = [Binding("escape", "dismiss_none", "Cancel", id="resume.cancel")]

    def __init__(self, sessions: Sequence[SessionSummary]) -> None:
        super().__init__()
        self.sessions = list(sessions)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Resume a session", style="bold"))
            if not self.sessions:
                yield Static("No earlier sessions in this folder.", id="empty")
            options = []
            for s in self.sessions:
                label = Text(
                    s.title or "(untitled)", style="bold", no_wrap=True, overflow="ellipsis"
                )
                label.append(f"  {s.updated}  {s.messages} messages  {s.session_id}", style="dim")
                options.append(Option(label, id=s.session_id))
            yield OptionList(*options, id="sessions")

    @on(OptionList.OptionSelected, "#sessions")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
