"""The answers a permission question offers, fitted to the call and proved before they are shown.

A rule is offered only when the engine has checked that it would approve this very call: the
decider is asked again with the rule added (and, for "accept all edits", with the mode switched).
A rule the analysis cannot let approve the call (a redirect, an env prefix, an option that runs
code, a tool's own ask, an explicit ask rule) is therefore never offered, and neither is a rule
re-quoted into a form that would not match.

Edits (tools whose permission kind is `path_write`) offer: allow once, allow edits to this file
for the session, accept all edits for the session (acceptEdits), always allow this file for the
project (the exact rule shown), deny. Everything else: allow once, always allow (the verified
suggestions), deny.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app import debuglog
from app.execution.interfaces import PermissionPrompt

if TYPE_CHECKING:
    # Imported where a question is offered: app.engine.api reaches this module, and the TUI's
    # first frame must not wait for the permission system (its Bash analysis, pathspec).
    from app.permissions import PermissionContext, RuleDecider


@dataclass(frozen=True)
class Offer:
    """What a question may offer beyond "allow once" and "deny"."""

    # Rules that allow this call for the session only ("allow edits to this file").
    session_rules: tuple[str, ...] = ()
    # Switching the session to acceptEdits would approve this call.
    accept_edits: bool = False
    # Rules to save for the project ("always allow").
    always_rules: tuple[str, ...] = ()


async def offer_for(prompt: PermissionPrompt, decider: RuleDecider) -> Offer:
    """The proved offer for a plain approval (a question with an interaction offers nothing)."""
    if prompt.interaction is not None or prompt.context is None:
        return Offer()
    tool = prompt.tool
    pc = decider.context
    if tool.permission_kind == "path_write":
        path = prompt.input.get(tool.subject_field or "")
        rule = file_rule("Edit", path, pc.project_dir) if isinstance(path, str) else ""
        proved = (rule,) if rule and await _approves(prompt, _with_rules(pc, (rule,))) else ()
        accept = pc.mode == "default" and await _approves(prompt, pc.with_mode("acceptEdits"))
        return Offer(session_rules=proved, accept_edits=accept, always_rules=proved)
    # Several parts may each need their rule: offered only when together they approve the call.
    rules = tuple(prompt.suggestions)
    if rules and await _approves(prompt, _with_rules(pc, rules)):
        return Offer(always_rules=rules)
    return Offer()


def file_rule(family: str, path: str, project_dir: str) -> str:
    """The rule for one file: `Edit(./src/a.py)` inside the project, `Edit(//abs/a.py)` outside.
    "" for a name a rule would read as a pattern (`*`, `?`, `[`): no rule is better than a wider
    one."""
    if not path or any(c in path for c in "*?[]{}\\"):
        return ""
    root = project_dir.rstrip("/") or "/"
    if path.startswith(root + "/"):
        return f"{family}(./{os.path.relpath(path, root)})"
    return f"{family}(/{path})" if path.startswith("/") else ""


def _with_rules(pc: PermissionContext, rules: tuple[str, ...]) -> PermissionContext | None:
    from app.permissions import allow_for_session

    try:
        return allow_for_session(pc, rules)
    except Exception as exc:  # a suggestion that does not parse is not offered
        debuglog.record("permissions", f"the suggested rules {rules} do not parse", exc)
        return None


async def _approves(prompt: PermissionPrompt, pc: PermissionContext | None) -> bool:
    if pc is None or prompt.context is None:
        return False
    from app.permissions import RuleDecider

    parsed: Any = prompt.parsed
    try:
        decision = await RuleDecider(pc).decide(prompt.tool, parsed, prompt.input, prompt.context)
    except Exception as exc:  # a check that fails proves nothing
        debuglog.record("permissions", f"re-deciding {prompt.tool_name} with a rule raised", exc)
        return False
    return decision.behavior == "allow"
