"""The seams between the call pipeline and the systems it consults.

The pipeline talks to hooks, the permission decider and the user only through these Protocols, so
each of those systems can be built, replaced and tested on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from app.execution.resolve_once import ResolveOnce
from app.hooks.calls import HookRunner, HookToolCall, NoHooks
from tools.base import Tool, ToolContext, ToolPreview
from tools.decisions import DecisionReason, PermissionDecision
from tools.interaction import UserInteraction

__all__ = [
    "DenyingPrompter",
    "HookRunner",
    "HookToolCall",
    "NoHooks",
    "PermissionDecider",
    "PermissionPrompt",
    "Prompter",
    "Resolution",
    "ToolCheckDecider",
]

T = TypeVar("T")


class Resolution(Protocol[T]):
    """The port of a one-shot answer raced by several parties (ResolveOnce implements it; views
    and front ends can hold a question's resolver as this type).

    A racer with side effects calls `claim()` first and delivers with `set_claimed()`; `resolve()`
    does both. Only the first claim wins; `is_resolved()` is true from that claim on."""

    def claim(self) -> bool: ...

    def resolve(self, value: T) -> bool: ...

    def set_claimed(self, value: T) -> None: ...

    def is_claimed(self) -> bool: ...

    def is_resolved(self) -> bool: ...

    def add_done_callback(self, callback: Callable[[T], None]) -> None: ...

    async def wait(self) -> T: ...


class PermissionDecider(Protocol):
    """Rules, mode and the tool's own check, without asking anybody.

    Returns allow, deny or ask (never passthrough), with the reason that decided it. An "ask" whose
    reason kind is "rule" came from an explicit ask rule: a hook's allow does not override it.
    """

    async def decide(
        self,
        tool: Tool[Any],
        input: Any,
        observable_input: Mapping[str, Any],
        context: ToolContext,
    ) -> PermissionDecision: ...

    async def decide_as_asking(
        self,
        tool: Tool[Any],
        input: Any,
        observable_input: Mapping[str, Any],
        context: ToolContext,
    ) -> PermissionDecision:
        """The verdict with dontAsk read as default: a hook's allow, or an approved rewrite of
        the input, answers the question dontAsk would have denied. A decider without modes
        returns what `decide` does."""
        ...


@dataclass
class PermissionPrompt:
    """One question for the user. Whoever answers resolves `resolver` (claim first)."""

    tool: Tool[Any]
    tool_name: str
    tool_use_id: str
    input: Mapping[str, Any]
    message: str
    reason: DecisionReason | None
    suggestions: tuple[str, ...]
    resolver: ResolveOnce[PermissionDecision] = field(default_factory=ResolveOnce)
    summary: str = ""
    # What the tool needs answered beyond allow/deny (its own declaration); None: a plain approval.
    interaction: UserInteraction | None = None
    # The tool's user_facing_name, and its preview (a command, or a diff against the file on
    # disk), computed off the event loop before the question is asked; None: no preview.
    title: str = ""
    preview: ToolPreview | None = None
    # The subagent whose call this is ("Explore agent"); "" for the session's own calls.
    agent: str = ""
    # The parsed input and the call's context: what a prompter needs to prove that a rule it
    # would offer approves this call (app/engine/choices.py). None: nothing is proved, nothing
    # beyond the suggestions is offered.
    parsed: Any = None
    context: ToolContext | None = None


class Prompter(Protocol):
    """Shows a PermissionPrompt and resolves its ResolveOnce with the user's answer.

    It must resolve through `prompt.resolver` (claim, then act) and may return as soon as it has
    shown the prompt or when answered; the pipeline awaits the resolver, racing it with aborts.
    """

    async def ask(self, prompt: PermissionPrompt) -> None: ...


class DenyingPrompter:
    """No one to ask (headless): every ask becomes a deny that says how to allow it."""

    async def ask(self, prompt: PermissionPrompt) -> None:
        if prompt.interaction is not None:
            # Questions or a plan need a person, not a rule: say so rather than "allow it".
            text = prompt.interaction.headless_message
            prompt.resolver.resolve(PermissionDecision.deny(text, DecisionReason("headless", text)))
            return
        why = prompt.reason.describe() if prompt.reason else prompt.message
        message = (
            f"Permission to use {prompt.tool_name} was denied: {why}. lathe -p cannot ask; "
            "allow it with --allowedTools or settings."
        )
        prompt.resolver.resolve(
            PermissionDecision.deny(message, DecisionReason("headless", "lathe -p cannot ask"))
        )


class ToolCheckDecider:
    """The decider used before the full permission system is configured: the tool's own check,
    then read-only tools allowed, everything else asked."""

    async def decide(
        self,
        tool: Tool[Any],
        input: Any,
        observable_input: Mapping[str, Any],
        context: ToolContext,
    ) -> PermissionDecision:
        own = await tool.check_permissions(input, context)
        if own.behavior != "passthrough":
            return own
        if tool.is_read_only(input) and tool.read_only_allows:
            return PermissionDecision.allow(DecisionReason("check", "read-only tool"))
        return PermissionDecision.ask(
            f"{tool.name} needs permission",
            DecisionReason("mode", f"{tool.name} is not read-only and no rule allows it"),
        )

    async def decide_as_asking(
        self,
        tool: Tool[Any],
        input: Any,
        observable_input: Mapping[str, Any],
        context: ToolContext,
    ) -> PermissionDecision:
        return await self.decide(tool, input, observable_input, context)  # no modes to read


if TYPE_CHECKING:

    def _is_a_resolution(
        resolver: ResolveOnce[PermissionDecision],
    ) -> Resolution[PermissionDecision]:
        return resolver  # mypy proves ResolveOnce satisfies the port
