"""The part every question screen shares: keys pressed in its first moments are ignored (typing
meant for the prompt must not answer it), and a question answered elsewhere (Ctrl+C aborting the
turn claims its resolver) closes the screen."""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import ModalScreen
from textual.widgets import Button

from app.engine.api import PermissionQuestion
from app.tui.screens.key_guard import KeyGuard
from tools.decisions import PermissionDecision


class GuardedQuestionScreen(ModalScreen[PermissionDecision | None]):
    def __init__(
        self, prompt: PermissionQuestion, *, key_guard_s: float, clock: Callable[[], float]
    ) -> None:
        super().__init__()
        self.prompt = prompt
        self.key_guard_s = key_guard_s
        self.clock = clock
        self.guard = KeyGuard(self, key_guard_s, clock)

    def start_guard(self) -> None:
        """Call from on_mount: buttons take clicks only (Enter on a focused button would be a
        keystroke answer that dodges the key guard), and the question tells the screen when it
        is answered (by the screen itself, or elsewhere: Ctrl+C, a hook)."""
        for button in self.query(Button):
            button.can_focus = False
        self.set_focus(None)
        self.prompt.on_answered(self._on_answered)
        self._answered_elsewhere()  # answered before the screen was up

    def _on_answered(self, decision: PermissionDecision) -> None:
        # Runs inside whoever answered (the pipeline's abort, a hook): close on the next tick.
        self.call_later(self._answered_elsewhere)

    def _answered_elsewhere(self) -> None:
        # The screen's own answer dismissed it already (it is no longer current).
        if self.prompt.answered and self.is_current:
            self.dismiss(None)

    def _guarded(self) -> bool:
        return self.guard.guarded()
