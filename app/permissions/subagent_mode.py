"""An agent definition's `permissionMode`, as Claude Code 2.1.332 applies it to the subagent.

Its rule (read from its binary, checked side by side): the declared mode applies only when the
parent session is in default or dontAsk mode; a parent in bypassPermissions, acceptEdits, auto or
plan mode keeps its own mode for the subagent. A declared bypassPermissions is never granted
(the parent is not in bypass mode, so the session has not authorized it), and lathe has no auto
mode; both keep the parent's mode, with a warning. The subagent's decider reads the parent's
rules live and only its mode differs, so `/permissions` changes still reach it, and the
policy's disableBypassPermissionsMode can never be widened by an agent file.

An agent file is a carrier like a settings file: one checked into a folder nobody trusted (a
cloned repository's `.claude/agents/*.md` or `.lathe/agents/*.md`, and so every forked skill that
names it) may not widen the mode either, as its checked-in `defaultMode` may not
(app/permissions/load.py): a mode wider than the parent's is ignored with a warning. The user's
own agents, plugins they installed and `--agents` keep Claude Code's rule.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from app.config.models import PERMISSION_MODES, PermissionMode
from app.permissions.context import PermissionContext
from app.permissions.decider import RuleDecider
from app.permissions.messages import source_label
from app.permissions.view import ContextPermissionView
from tools.base import Tool, ToolContext
from tools.decisions import PermissionDecision

_PARENT_KEEPS = frozenset({"bypassPermissions", "acceptEdits", "auto", "plan"})
# Modes that ask for or deny at least what the parent's default or dontAsk does (load.py's list).
_NOT_WIDER = frozenset({"default", "plan", "dontAsk"})
# Agent sources a cloned repository writes (app/agents/loader.py agent_folders).
_CHECKED_IN_SOURCES = frozenset({"project"})


def untrusted_carrier(source: str, context: PermissionContext) -> bool:
    """Whether an agent definition of this source is the words of a folder nobody trusted:
    checked into the project, in a TUI folder not trusted or a headless run the trust records
    do not name (`confined`)."""
    return source in _CHECKED_IN_SOURCES and (context.confined or not context.trusted)


def subagent_mode(
    declared: str | None, parent_mode: str, *, untrusted: bool = False
) -> tuple[PermissionMode | None, str]:
    """The subagent's own mode (None: the parent's) and a warning ("" when none). `untrusted`:
    the definition is a checked-in file of an untrusted folder (untrusted_carrier)."""
    if not declared or parent_mode in _PARENT_KEEPS:
        return None, ""
    if untrusted and declared not in _NOT_WIDER:
        return None, (
            f"Subagent declared permissionMode {declared} ignored: this folder is not trusted "
            f"(trust it in the TUI, or pass --permission-mode); keeping parent mode "
            f"'{parent_mode}'."
        )
    if declared == "bypassPermissions":
        return None, (
            "Subagent declared permissionMode bypassPermissions is not authorized by this "
            f"session (parent not in bypass mode); keeping parent mode '{parent_mode}'."
        )
    for mode in PERMISSION_MODES:
        if mode == declared and mode != "bypassPermissions":
            return mode, ""
    return None, (
        f"Subagent declared permissionMode {declared!r}, which lathe does not have; keeping "
        f"parent mode '{parent_mode}'."
    )


def denied_agent_type(context: PermissionContext, names: Iterable[str]) -> str:
    """Claude Code's text when a deny rule `Agent(TYPE)` (or `Task(TYPE)`, or a bare `Agent`)
    holds for one of the names a subagent goes by (the type as asked and as found, compared
    without case, as the session finds it), else "". Checked where every subagent starts, so
    that a forked skill's `agent:` or a background launch reaches no type a rule denies."""
    wanted = [n for n in names if n]
    for rule in context.deny:
        if rule.tool != "Agent":
            continue
        spec = rule.specifier
        for name in wanted:
            if spec is None or fnmatch.fnmatchcase(name.casefold(), spec.casefold()):
                return (
                    f"Agent type '{name}' has been denied by permission rule '{rule.display()}' "
                    f"from {source_label(rule.source)}."
                )
    return ""


class ModeDecider:
    """The parent's RuleDecider with another mode (None: the parent's, read live) and the
    subagent's own memory folders (context.memory_dirs): same rules, read live."""

    def __init__(
        self,
        base: RuleDecider,
        mode: PermissionMode | None,
        memory_dirs: tuple[str, ...] = (),
    ) -> None:
        self.base = base
        self.mode = mode
        self.memory_dirs = memory_dirs

    @property
    def context(self) -> PermissionContext:
        own = self.base.context
        if self.mode is not None:
            own = replace(own, mode=self.mode, pre_plan_mode=None)
        return replace(own, memory_dirs=self.memory_dirs) if self.memory_dirs else own

    def set_context(self, context: PermissionContext) -> None:
        # A rule the user adds while the subagent asks is the session's; the mode and the
        # memory folders stay ours.
        base = self.base.context
        mode = base.mode if self.mode is not None else context.mode
        self.base.set_context(replace(context, mode=mode, memory_dirs=base.memory_dirs))

    def blanket_denied(self, tool_name: str) -> bool:
        return self.base.blanket_denied(tool_name)

    def view(self) -> ContextPermissionView:
        return ContextPermissionView(lambda: self.context)

    async def decide(
        self, tool: Tool[Any], input: Any, observable_input: Mapping[str, Any], ctx: ToolContext
    ) -> PermissionDecision:
        return await RuleDecider(self.context).decide(tool, input, observable_input, ctx)

    async def decide_as_asking(
        self, tool: Tool[Any], input: Any, observable_input: Mapping[str, Any], ctx: ToolContext
    ) -> PermissionDecision:
        return await RuleDecider(self.context).decide_as_asking(tool, input, observable_input, ctx)
