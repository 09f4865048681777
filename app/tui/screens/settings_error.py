"""Shown before the session starts when a settings file is broken: the files, lines and problems,
and three ways on. It blocks: a broken file may hold the deny rule that matters, so nothing runs
until the user reloads a fixed file, exits, or knowingly continues with the broken files' deny
and ask rules only (no allow rules, hooks, env or servers from them)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Literal

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from app.tui.screens.dialog_fit import fit
from app.tui.screens.key_guard import KeyGuard
from app.tui.screens.typed_ahead import TypedAhead, take_typed_key

SettingsAnswer = Literal["fixed", "continue", "exit"]


class SettingsErrorScreen(ModalScreen[SettingsAnswer]):
    CSS_PATH = "settings_error.tcss"
    BINDINGS = [
        # Digits and Esc only: letters typed ahead for the prompt must not pick an answer.
        Binding("1", "reload", "Reload", id="settings_error.reload"),
        Binding("2,escape", "exit", "Exit", id="settings_error.exit"),
        Binding("3", "go_on", "Continue", id="settings_error.continue"),
    ]

    def __init__(
        self,
        problems: Sequence[str],
        check: Callable[[], Sequence[str]],
        *,
        key_guard_s: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.problems = list(problems)
        self.check = check
        # "Continue" takes broken files' deny rules only: typing must never answer it.
        self.guard = KeyGuard(self, key_guard_s, clock)

    def on_key(self, event: events.Key) -> None:
        # Letters, spaces and other digits are kept for the prompt, as every dialog does.
        dialog_key = event.key in ("1", "2", "3")
        if take_typed_key(self, self.guard, event, dialog_key=dialog_key, typing=False):
            fit(self, "#problems", most=12)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(
                Text("Broken settings: nothing runs until you choose", style="bold"), id="title"
            )
            with VerticalScroll(id="problems"):
                yield Static(self._problems_text(), id="problem-list")
            yield Static(
                "Continuing keeps every deny and ask rule lathe could read from the broken files, "
                "and takes no allow rule, hook, env or MCP server from them (nor a rule given on "
                "the command line that does not parse).",
                id="explain",
            )
            yield Static("", id="status", classes="-empty")
            with Horizontal(id="buttons"):
                yield Button("1 Reload after fixing", id="reload", variant="primary", compact=True)
                yield Button("2 Exit", id="exit", variant="error", compact=True)
                yield Button("3 Continue with deny and ask rules only", id="continue", compact=True)
            yield TypedAhead(id="typed")
        yield Footer()

    def _problems_text(self) -> Text:
        text = Text()
        for i, problem in enumerate(self.problems):
            if i:
                text.append("\n")
            text.append("• ")
            text.append(problem)
        return text

    def on_mount(self) -> None:
        for button in self.query(Button):
            button.can_focus = False
        fit(self, "#problems", most=12)

    def on_resize(self) -> None:
        fit(self, "#problems", most=12)

    def action_reload(self) -> None:
        problems = list(self.check())
        if not problems:
            self.dismiss("fixed")
            return
        self.problems = problems
        self.query_one("#problem-list", Static).update(self._problems_text())
        status = self.query_one("#status", Static)
        status.update(Text(f"Still broken (checked {time.strftime('%H:%M:%S')}).", style="italic"))
        status.remove_class("-empty")
        fit(self, "#problems", most=12)

    def action_exit(self) -> None:
        self.dismiss("exit")

    def action_go_on(self) -> None:
        self.dismiss("continue")

    @on(Button.Pressed, "#reload")
    def _reload(self) -> None:
        self.action_reload()

    @on(Button.Pressed, "#exit")
    def _exit(self) -> None:
        self.action_exit()

    @on(Button.Pressed, "#continue")
    def _continue(self) -> None:
        self.action_go_on()
