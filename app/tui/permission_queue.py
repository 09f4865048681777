"""Permission requests appear one at a time; the rest wait in order.

A request that someone else already resolved (Ctrl+C, a hook) is skipped, and an open dialog whose
request got resolved elsewhere closes itself (PermissionScreen polls its ResolveOnce).
"""

from __future__ import annotations

from collections import deque

from app.engine.api import PermissionQuestion
from app.tui.app_base import AppBase
from app.tui.screens.permission import PermissionScreen
from app.tui.screens.plan_approval import PlanApprovalScreen
from app.tui.screens.questions import QuestionsScreen
from tools.decisions import PermissionDecision
from tools.interaction import PlanApprovalRequest, QuestionsRequest

Dialog = PermissionScreen | QuestionsScreen | PlanApprovalScreen


class PermissionQueue(AppBase):
    _waiting: deque[PermissionQuestion]
    _dialog: Dialog | None = None

    def enqueue_permission(self, prompt: PermissionQuestion) -> None:
        if not hasattr(self, "_waiting"):
            self._waiting = deque()
        self._waiting.append(prompt)
        self._show_next()

    @property
    def open_dialog(self) -> Dialog | None:
        return self._dialog

    def open_dialog_prompt(self) -> PermissionQuestion | None:
        return self._dialog.prompt if self._dialog is not None else None

    @property
    def waiting_permissions(self) -> int:
        return len(getattr(self, "_waiting", ()))

    def _show_next(self) -> None:
        if self._dialog is not None:
            return
        waiting: deque[PermissionQuestion] = getattr(self, "_waiting", deque())
        while waiting:
            prompt = waiting.popleft()
            if prompt.resolver.is_claimed():
                continue
            self._dialog = self._dialog_for(prompt)
            self.push_screen(self._dialog, self._dialog_closed)
            if not self.app_focus:
                # The user is in another window: the turn is blocked on them.
                self.bell()
            return

    def _dialog_for(self, prompt: PermissionQuestion) -> Dialog:
        """The dialog for what the tool declared it needs answered (by type, never by name)."""
        guard, clock = self.config.dialog_key_guard_s, self.config.clock
        request = prompt.interaction
        if isinstance(request, QuestionsRequest):
            return QuestionsScreen(prompt, request, key_guard_s=guard, clock=clock)
        if isinstance(request, PlanApprovalRequest):
            return PlanApprovalScreen(prompt, request, key_guard_s=guard, clock=clock)
        return PermissionScreen(prompt, key_guard_s=guard, clock=clock)

    def _dialog_closed(self, decision: PermissionDecision | None) -> None:
        self._dialog = None
        mode = decision.extra.get("set_mode") if decision is not None else None
        if isinstance(mode, str) and decision is not None and decision.behavior == "allow":
            # The engine switched the mode already (its prompter); the status bar follows.
            self.config.permission_mode = mode
            self.main.status_bar.set(permission_mode=mode)
        self._show_next()

    def drop_resolved_permissions(self) -> None:
        waiting = getattr(self, "_waiting", None)
        if waiting:
            self._waiting = deque(p for p in waiting if not p.resolver.is_claimed())
        dialog = self._dialog
        if dialog is not None and dialog.prompt.resolver.is_claimed() and dialog.is_current:
            dialog.dismiss(None)
