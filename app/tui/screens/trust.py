"""Asked once per folder: trust this project's settings (its hooks and allow rules)?"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from app.tui.screens.dialog_fit import fit
from app.tui.screens.key_guard import KeyGuard
from app.tui.screens.typed_ahead import TypedAhead, take_typed_key


class TrustScreen(ModalScreen[bool]):
    CSS_PATH = "trust.tcss"
    BINDINGS = [
        # Digits and Esc only: a letter typed for the prompt ("any", "yes") must not answer.
        Binding("1", "answer(True)", "Trust", id="trust.yes"),
        Binding("2,escape", "answer(False)", "Don't trust", id="trust.no"),
    ]

    def __init__(
        self, folder: str, *, key_guard_s: float = 0.5, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.folder = folder
        # Trusting enables the project's hooks and allow rules: typing must never answer it.
        self.guard = KeyGuard(self, key_guard_s, clock)

    def on_key(self, event: events.Key) -> None:
        # Letters, spaces and other digits are kept for the prompt, as every dialog does.
        dialog_key = event.key in ("1", "2")
        if take_typed_key(self, self.guard, event, dialog_key=dialog_key, typing=False):
            fit(self)

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
            yield TypedAhead(id="typed")
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
        if not self.guard.guarded():
            self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no(self) -> None:
        if not self.guard.guarded():
            self.dismiss(False)
