"""The part every question screen shares: keys pressed in its first moments are ignored (typing
meant for the prompt must not answer it), and a question answered elsewhere (Ctrl+C aborting the
turn claims its resolver) closes the screen."""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import ModalScreen
from textual.widgets import Button

from app.execution.interfaces import PermissionPrompt
from tools.decisions import PermissionDecision


class GuardedQuestionScreen(ModalScreen[PermissionDecision | None]):
    def __init__(
        self, prompt: PermissionPrompt, *, key_guard_s: float, clock: Callable[[], float]
    ) -> None:
        super().__init__()
        self.prompt = prompt
        self.key_guard_s = key_guard_s
        self.clock = clock
        self.shown_at = clock()

    def start_guard(self) -> None:
        """Call from on_mount: buttons take clicks only (Enter on a focused button would be a
        keystroke answer that dodges the key guard), and the resolver is watched."""
        for button in self.query(Button):
            button.can_focus = False
        self.set_focus(None)
        self.set_interval(0.1, self._check_claimed)

    def _check_claimed(self) -> None:
        if self.prompt.resolver.is_claimed() and self.is_current:
            self.dismiss(None)

    def _guarded(self) -> bool:
        return self.clock() - self.shown_at < self.key_guard_s
