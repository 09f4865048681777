"""What hooks are told about a tool call, and the runner protocol the call pipeline consults.

Below the pipeline (app/execution imports this; this imports nothing of app/execution), so the
hook runner and the pipeline meet here without a cycle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.config.hooks import HookEvent
from app.hooks.results import (
    PermissionRequestHookResult,
    PostToolHookItem,
    PreToolHookItem,
    SessionEndHookResult,
)
from tools.abort import AbortSignal
from tools.base import ToolContext
from tools.context import BackgroundTasks


class HookContext(Protocol):
    """What a hook run reads of the context it is given (a ToolContext is one): the folder the
    hook's input names, the background tasks a Stop hook is told of, the signal that stops it."""

    @property
    def cwd(self) -> str: ...

    @property
    def background(self) -> BackgroundTasks: ...

    @property
    def abort(self) -> AbortSignal: ...


@dataclass(frozen=True)
class HookToolCall:
    """What hooks are told about one call. `tool_input` is the observable (normalised) copy."""

    tool_name: str
    tool_input: Mapping[str, Any]
    tool_use_id: str
    is_mcp: bool = False
    # How long the tool ran (PostToolUse / PostToolUseFailure's `duration_ms`); None: not run.
    duration_ms: int | None = None


class HookRunner(Protocol):
    async def pre_tool_use(
        self, call: HookToolCall, context: ToolContext
    ) -> list[PreToolHookItem]: ...

    async def post_tool_use(
        self, call: HookToolCall, response: Any, context: ToolContext
    ) -> list[PostToolHookItem]: ...

    async def post_tool_use_failure(
        self, call: HookToolCall, error: str, context: ToolContext
    ) -> list[PostToolHookItem]: ...

    def has_hooks(self, event: HookEvent) -> bool:
        """Whether any hook is configured for `event` (the pipeline skips the others)."""
        ...

    async def permission_request(
        self, call: HookToolCall, suggestions: Sequence[str], context: HookContext | None = None
    ) -> PermissionRequestHookResult:
        """PermissionRequest: where the dialog would show; a hook's allow or deny answers it."""
        ...

    async def notification(
        self, message: str, notification_type: str, context: HookContext | None = None
    ) -> SessionEndHookResult:
        """Notification: lathe waits for the user; the output is only shown."""
        ...


class NoHooks:
    """A HookRunner with no hooks configured."""

    async def pre_tool_use(self, call: HookToolCall, context: ToolContext) -> list[PreToolHookItem]:
        return []

    async def post_tool_use(
        self, call: HookToolCall, response: Any, context: ToolContext
    ) -> list[PostToolHookItem]:
        return []

    async def post_tool_use_failure(
        self, call: HookToolCall, error: str, context: ToolContext
    ) -> list[PostToolHookItem]:
        return []

    def has_hooks(self, event: HookEvent) -> bool:
        return False

    async def permission_request(
        self, call: HookToolCall, suggestions: Sequence[str], context: HookContext | None = None
    ) -> PermissionRequestHookResult:
        return PermissionRequestHookResult()  # nobody answered: the dialog shows

    async def notification(
        self, message: str, notification_type: str, context: HookContext | None = None
    ) -> SessionEndHookResult:
        return SessionEndHookResult()
