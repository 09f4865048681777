"""The PermissionView tools see (tools/base.py): path deny checks and the working folders."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from app.permissions.messages import rule_reason
from app.permissions.pathcheck import deny_for
from app.permissions.paths import candidates, inside
from tools.decisions import PermissionDecision

if TYPE_CHECKING:
    from app.permissions.context import PermissionContext


class ContextPermissionView:
    """Answers a tool's questions from the current PermissionContext (read at each call)."""

    def __init__(self, context: PermissionContext | Callable[[], PermissionContext]) -> None:
        self._get: Callable[[], PermissionContext] = (
            context if callable(context) else (lambda: context)
        )

    def check_path(
        self, tool_name: str, path: str, access: Literal["read", "write"]
    ) -> PermissionDecision:
        """Deny for a path a rule denies (a Read deny covers writes too); else passthrough."""
        pc = self._get()
        rule = deny_for(pc, access, candidates(path, pc.project_dir, pc.home))
        if rule is None:
            return PermissionDecision.passthrough()
        reason = rule_reason(rule, "denied")
        return PermissionDecision.deny(reason.text, reason)

    def mode(self) -> str:
        return self._get().mode

    def is_in_working_dirs(self, path: str) -> bool:
        pc = self._get()
        return all(inside(c, pc.working_dirs) for c in candidates(path, pc.project_dir, pc.home))
