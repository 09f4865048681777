"""An agent file's `permissionMode` under Claude Code 2.1.332's rule (app/permissions/subagent_mode.py),
and the subagent's decider: the parent's rules, read live, in the agent's own mode."""

from __future__ import annotations

import pytest

from app.config.rules import parse_rule
from app.permissions.context import PermissionContext
from app.permissions.decider import RuleDecider
from app.permissions.subagent_mode import ModeDecider, subagent_mode


@pytest.mark.parametrize(
    ("declared", "parent", "expected"),
    [
        ("acceptEdits", "default", "acceptEdits"),
        ("plan", "default", "plan"),
        ("acceptEdits", "dontAsk", "acceptEdits"),
        ("dontAsk", "default", "dontAsk"),
        # A parent in these modes keeps its own for the subagent.
        ("plan", "acceptEdits", None),
        ("default", "bypassPermissions", None),
        ("acceptEdits", "plan", None),
        # Never granted by an agent file; lathe has no auto mode.
        ("bypassPermissions", "default", None),
        ("auto", "default", None),
        ("", "default", None),
        (None, "default", None),
    ],
)
def test_claude_codes_rule(declared, parent, expected):
    mode, warning = subagent_mode(declared, parent)
    assert mode == expected
    assert bool(warning) == (declared in ("bypassPermissions", "auto") and parent == "default")


def test_the_mode_decider_follows_the_parents_rules_live():
    base = RuleDecider(PermissionContext(mode="default"))
    child = ModeDecider(base, "acceptEdits")
    assert child.context.mode == "acceptEdits"
    rule = parse_rule("Bash(ls:*)", "allow", "session", "")
    base.set_context(base.context.with_rules([rule]))
    assert rule in child.context.allow and child.context.mode == "acceptEdits"
    # A rule added through the child reaches the session; the session's mode stays its own.
    other = parse_rule("Bash(pwd:*)", "allow", "session", "")
    child.set_context(child.context.with_rules([other]))
    assert other in base.context.allow and base.context.mode == "default"
