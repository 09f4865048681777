"""Asked once per folder: trust this project's settings (its hooks and allow rules)?"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from app.tui.screens.dialog_fit import fit


class TrustScreen(ModalScreen[bool]):
    CSS_PATH = "trust.tcss"
    BINDINGS = [
        Binding("1,y", "answer(True)", "Trust", id="trust.yes"),
        Binding("2,n,escape", "answer(False)", "Don't trust", id="trust.no"),
    ]

    def __init__(self, folder: str) -> None:
        super().__init__()
        self.folder = folder

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Do you trust the files in this folder?", style="bold"))
            yield Static(Text(self.folder, style="bold"), id="folder")
            yield Static(
                "lathe reads this project's settings, which can allow tools and run hooks "
                "(commands) on your machine. Until you trust it, its hooks and allow rules are "
                "ignored; its deny and ask rules still apply.",
                id="explain",
            )
            with Horizontal(id="buttons"):
                yield Button("1 Yes, trust this folder", id="yes", variant="success", compact=True)
                yield Button("2 No, continue without", id="no", variant="error", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        for button in self.query(Button):
            button.can_focus = False
        fit(self)

    def on_resize(self) -> None:
        fit(self)

    def action_answer(self, trusted: bool) -> None:
        self.dismiss(trusted)

    @on(Button.Pressed, "#yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no(self) -> None:
        self.dismiss(False)
