"""What a custom command's or a skill's turn asks of the session, as a port.

The commands package sits below the engine and the skills package (pyproject.toml's layers), so it
names neither: app/engine/session.py's Session implements `CommandSession` (mypy proves it there),
and app/commands and app/skills take the session as this type rather than `Any` or reaching into
its parts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from app.config.hooks import HookHandler
    from app.execution.pipeline import PipelineDeps
    from app.permissions.context import PermissionContext
    from tools.base import ToolContext


class ScopeRules(Protocol):
    """The live permission rules a command's `allowed-tools` are added to (RuleDecider)."""

    @property
    def context(self) -> PermissionContext: ...

    def set_context(self, context: PermissionContext) -> None: ...


class HandlerHost(Protocol):
    """A hook runner that takes a skill's own `hooks:` for the length of its scope."""

    def add_handlers(self, handlers: tuple[HookHandler, ...]) -> Callable[[], None]: ...


class ModelHolder(Protocol):
    model: str


class CommandSession(Protocol):
    @property
    def session_id(self) -> str: ...

    @property
    def context(self) -> ToolContext: ...

    @property
    def deps(self) -> PipelineDeps: ...

    @property
    def backend(self) -> ModelHolder: ...

    @property
    def scope_rules(self) -> ScopeRules | None:
        """The rules in force (None: a bare decider, no rules to scope)."""
        ...

    def hook_hosts(self) -> Sequence[HandlerHost]:
        """The session's hook runners that a skill's hooks join (each once)."""
        ...
