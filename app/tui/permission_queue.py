"""Permission questions appear one at a time; the rest wait in order.

A question someone else already answered (Ctrl+C, a hook) is skipped, and an open dialog whose
question got answered elsewhere closes itself (the question tells it: no polling).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from app.engine.api import PermissionQuestion
from app.tui.screens.permission import PermissionScreen
from app.tui.screens.plan_approval import PlanApprovalScreen
from app.tui.screens.questions import QuestionsScreen
from tools.decisions import PermissionDecision
from tools.interaction import PlanApprovalRequest, QuestionsRequest

if TYPE_CHECKING:
    from app.tui.app import LatheApp

Dialog = PermissionScreen | QuestionsScreen | PlanApprovalScreen


class PermissionQueue:
    def __init__(self, app: LatheApp) -> None:
        self.app = app
        self._waiting: deque[PermissionQuestion] = deque()
        self.dialog: Dialog | None = None

    def enqueue(self, question: PermissionQuestion) -> None:
        self._waiting.append(question)
        self._show_next()

    @property
    def open_question(self) -> PermissionQuestion | None:
        return self.dialog.prompt if self.dialog is not None else None

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def _show_next(self) -> None:
        if self.dialog is not None:
            return
        while self._waiting:
            question = self._waiting.popleft()
            if question.answered:
                continue
            self.dialog = self._dialog_for(question)
            self.app.push_screen(self.dialog, self._dialog_closed)
            if not self.app.app_focus:
                # The user is in another window: the turn is blocked on them.
                self.app.bell()
            return

    def _dialog_for(self, question: PermissionQuestion) -> Dialog:
        """The dialog for what the tool declared it needs answered (by type, never by name)."""
        guard, clock = self.app.config.dialog_key_guard_s, self.app.config.clock
        request = question.interaction
        if isinstance(request, QuestionsRequest):
            return QuestionsScreen(question, request, key_guard_s=guard, clock=clock)
        if isinstance(request, PlanApprovalRequest):
            return PlanApprovalScreen(question, request, key_guard_s=guard, clock=clock)
        return PermissionScreen(question, key_guard_s=guard, clock=clock)

    def _dialog_closed(self, decision: PermissionDecision | None) -> None:
        self.dialog = None
        mode = decision.set_mode if decision is not None else None
        if mode is not None and decision is not None and decision.behavior == "allow":
            # The engine switched the mode already (its prompter); the status bar follows.
            self.app.config.permission_mode = mode
            self.app.main.status_bar.set(permission_mode=mode)
        self._show_next()

    def drop_resolved(self) -> None:
        self._waiting = deque(q for q in self._waiting if not q.answered)
        dialog = self.dialog
        if dialog is not None and dialog.prompt.answered and dialog.is_current:
            dialog.dismiss(None)
