"""Permissions: rules with their sources, bash analysis, path rules, modes, decisions, trust.

Entry points:
- `context_from_settings(loaded, trusted=...)`: the session's context from the settings the
  composition root loaded once (app/compose.py).
- `RuleDecider(context)`: the pipeline's PermissionDecider; `.view()` is the tools' PermissionView,
  `.blanket_denied(name)` the registry's filter, `.set_context(new)` applies a new snapshot.
- `cycle_mode`, `enter_plan_mode`, `exit_plan_mode`; `always_allow`, `allow_for_session`;
  `is_trusted`, `set_trusted`; `headless_denial`, `part_reason`.
"""

from app.config.rules import Rule, RuleError, parse_rule, split_rule_list
from app.permissions.context import PermissionContext
from app.permissions.decider import RuleDecider, decide_call
from app.permissions.load import context_from_settings
from app.permissions.messages import PLAN_MODE_MESSAGE, headless_denial, part_reason
from app.permissions.modes import (
    CYCLE,
    cycle_mode,
    enter_plan_mode,
    exit_plan_mode,
    next_mode,
    parse_mode,
)
from app.permissions.persist import PersistError, allow_for_session, always_allow
from app.permissions.trust import is_trusted, set_trusted
from app.permissions.view import ContextPermissionView

__all__ = [
    "CYCLE",
    "PLAN_MODE_MESSAGE",
    "ContextPermissionView",
    "PermissionContext",
    "PersistError",
    "Rule",
    "RuleDecider",
    "RuleError",
    "allow_for_session",
    "always_allow",
    "context_from_settings",
    "cycle_mode",
    "decide_call",
    "enter_plan_mode",
    "exit_plan_mode",
    "headless_denial",
    "is_trusted",
    "next_mode",
    "parse_mode",
    "parse_rule",
    "part_reason",
    "set_trusted",
    "split_rule_list",
]
