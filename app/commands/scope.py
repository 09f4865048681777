"""A custom command's turn: its `allowed-tools` as allow rules and its `model`, then undone.

Rules are added to the decider's context with the source "command" and removed when the turn
ends (only those rules: anything else that changed the context meanwhile stays). A rule that
does not parse is skipped with a notice; it never widens anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.commands.loader import CustomCommand


def enter_command_scope(
    command: CustomCommand, session: Any, notices: list[str]
) -> Callable[[], None]:
    from app.permissions.rules import Rule, RuleError, parse_rule

    decider = session.parts.extra.get("decider")
    added: list[Rule] = []
    for text in command.allowed_tools:
        try:
            rule = parse_rule(text, "allow", "command", str(command.path))
        except RuleError as exc:
            notices.append(f"/{command.name}: allowed-tools entry skipped: {exc}")
            continue
        added.append(rule)
    if added and decider is not None:
        decider.set_context(decider.context.with_rules(added))
    old_model = session.backend.model
    if command.model:
        session.backend.model = command.model

    def leave() -> None:
        if added and decider is not None:
            context = decider.context
            for rule in added:
                context = context.without_rule(rule)
            decider.set_context(context)
        if command.model and session.backend.model == command.model:
            session.backend.model = old_model

    return leave
