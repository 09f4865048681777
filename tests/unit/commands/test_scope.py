"""A command's allowed-tools and model hold for its turn only; untrusted folders add no rules."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from app.commands.loader import CustomCommand
from app.commands.scope import enter_command_scope
from app.config.rules import parse_rule
from app.permissions.context import PermissionContext
from app.permissions.decider import RuleDecider


def _session(trusted: bool = True) -> SimpleNamespace:
    keep = parse_rule("Read", "allow", "userSettings")
    decider = RuleDecider(PermissionContext(allow=(keep,), trusted=trusted))
    return SimpleNamespace(
        scope_rules=decider,
        backend=SimpleNamespace(model="claude-sonnet-4-6"),
    )


def _command(source: str = "project", **kw: object) -> CustomCommand:
    fields = {"allowed_tools": ("Bash(git add:*)", "Bad(("), "model": "claude-haiku-4-5", **kw}
    return CustomCommand("c", Path("/p/c.md"), source, "body", **fields)  # type: ignore[arg-type]


def test_rules_and_model_for_the_turn_only() -> None:
    session = _session()
    decider = session.scope_rules
    notices: list[str] = []
    leave = enter_command_scope(_command(), session, notices)
    assert [r.display() for r in decider.context.allow] == ["Read", "Bash(git add:*)"]
    assert session.backend.model == "claude-haiku-4-5"
    assert len(notices) == 1 and "allowed-tools entry skipped" in notices[0]
    leave()
    assert [r.display() for r in decider.context.allow] == ["Read"]
    assert session.backend.model == "claude-sonnet-4-6"


def test_untrusted_project_command_adds_no_rules() -> None:
    session = _session(trusted=False)
    notices: list[str] = []
    leave = enter_command_scope(_command(), session, notices)
    assert [r.display() for r in session.scope_rules.context.allow] == ["Read"]
    assert "not trusted" in notices[0]
    leave()
    user = _session(trusted=False)
    enter_command_scope(_command("user"), user, [])
    assert len(user.scope_rules.context.allow) == 2  # the user's own command


def test_a_confined_headless_context_adds_no_project_rules() -> None:
    # Headless in a folder the trust records do not name (ext-r2 F19, F17): `trusted` is True
    # (headless honours the project's deny and ask rules) but the context is confined.
    session = _session()
    decider = session.scope_rules
    decider.set_context(replace(decider.context, confined=True))
    notices: list[str] = []
    enter_command_scope(_command(), session, notices)
    assert [r.display() for r in decider.context.allow] == ["Read"]
    assert "not trusted" in notices[0]
    enter_command_scope(_command("user"), session, [])
    assert len(decider.context.allow) == 2  # the user's own command still applies
