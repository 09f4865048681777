"""A custom command's or skill's turn: its `allowed-tools` as allow rules and its `model`, then
undone.

Rules are added to the decider's context (a project command's only when the folder is trusted,
as the project's own allow rules are; headless runs in a folder the trust records do not name
ignore them too) with the source "command" and removed when the turn
ends (only those rules: anything else that changed the context meanwhile stays). A rule that
does not parse is skipped with a notice; it never widens anything.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from app.commands.ports import CommandSession
from app.config.model_aliases import resolve_alias


class Scoped(Protocol):
    """A custom command or a skill: what its scope reads."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> Path: ...
    @property
    def source(self) -> str: ...
    @property
    def allowed_tools(self) -> tuple[str, ...]: ...
    @property
    def model(self) -> str: ...


def enter_command_scope(
    command: Scoped, session: CommandSession, notices: list[str], use_model: bool = True
) -> Callable[[], None]:
    """`use_model` False: a skill the model called keeps the session's model (Claude Code
    2.1.332, measured: the next request stays on it); typed as /name it switches."""
    from app.config.rules import Rule, RuleError, parse_rule

    decider = session.scope_rules
    added: list[Rule] = []
    trusted = decider is not None and decider.context.trusted and not decider.context.confined
    allowed = command.allowed_tools
    if allowed and command.source == "project" and not trusted:
        # An untrusted folder's allow rules are ignored (headless too: `confined`); its commands'
        # and skills' allow rules are the repository's own words as well. Without this a cloned
        # repository's skill with `allowed-tools: Bash` runs any command the model picks.
        notices.append(f"/{command.name}: allowed-tools ignored: this folder is not trusted")
        allowed = ()
    for text in allowed:
        try:
            rule = parse_rule(text, "allow", "command", str(command.path))
        except RuleError as exc:
            notices.append(f"/{command.name}: allowed-tools entry skipped: {exc}")
            continue
        added.append(rule)
    if added and decider is not None:
        decider.set_context(decider.context.with_rules(added))
    old_model = session.backend.model
    # `model: inherit` is the session's model (Claude Code 2.1.332 sends it, ext-r4 F11).
    named = command.model if command.model and command.model.strip() != "inherit" else ""
    model = resolve_alias(named) if named and use_model else ""
    if model:
        session.backend.model = model

    def leave() -> None:
        if added and decider is not None:
            context = decider.context
            for rule in added:
                context = context.without_rule(rule)
            decider.set_context(context)
        if model and session.backend.model == model:
            session.backend.model = old_model

    return leave
