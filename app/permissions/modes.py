"""The five permission modes and the Shift+Tab cycle."""

from __future__ import annotations

from dataclasses import replace

from app.config.models import PERMISSION_MODES, PermissionMode
from app.permissions.context import PermissionContext

CYCLE: tuple[PermissionMode, ...] = ("default", "acceptEdits", "plan")
MODE_LABELS: dict[PermissionMode, str] = {
    "default": "default",
    "acceptEdits": "accept edits",
    "plan": "plan mode",
    "bypassPermissions": "bypass permissions",
    "dontAsk": "don't ask",
}


def next_mode(mode: PermissionMode) -> PermissionMode:
    """default -> acceptEdits -> plan -> default; modes outside the cycle go back to default."""
    if mode not in CYCLE:
        return "default"
    return CYCLE[(CYCLE.index(mode) + 1) % len(CYCLE)]


def cycle_mode(pc: PermissionContext) -> PermissionContext:
    """Shift+Tab. Entering plan mode remembers the mode it left (see `exit_plan_mode`)."""
    new = next_mode(pc.mode)
    if new == "plan":
        return replace(pc, mode="plan", pre_plan_mode=pc.mode)
    return replace(pc, mode=new, pre_plan_mode=None)


def enter_plan_mode(pc: PermissionContext) -> PermissionContext:
    if pc.mode == "plan":
        return pc
    return replace(pc, mode="plan", pre_plan_mode=pc.mode)


def exit_plan_mode(pc: PermissionContext) -> PermissionContext:
    """Back to the mode in force before plan mode (default when none was recorded)."""
    if pc.mode != "plan":
        return pc
    back = pc.pre_plan_mode or "default"
    if back == "bypassPermissions" and pc.bypass_disabled:
        back = "default"
    return replace(pc, mode=back, pre_plan_mode=None)


def parse_mode(text: str) -> PermissionMode:
    for mode in PERMISSION_MODES:
        if mode == text:
            return mode
    raise ValueError(
        f"unknown permission mode {text!r}; choose one of {', '.join(PERMISSION_MODES)}"
    )
