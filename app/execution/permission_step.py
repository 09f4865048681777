"""Pipeline stage 7: combine a hook's opinion, the rules and the user's answer into one decision.

A hook's allow never overrides a deny or an explicit ask rule; a hook's deny always wins; a hook's
ask forces the dialog. A pending question is a ResolveOnce raced by the prompter and the abort
signal: whoever claims first decides, and a call whose decision lost to an abort never starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.execution.interfaces import DenyingPrompter, PermissionPrompt
from app.hooks.results import HookPermissionResult
from tools.base import Tool, ToolContext
from tools.decisions import DecisionReason, PermissionDecision
from tools.interaction import UserInteraction

if TYPE_CHECKING:
    from app.execution.pipeline import PipelineDeps


@dataclass(frozen=True)
class DecisionStep:
    decision: PermissionDecision
    aborted: bool = False


async def decide_permission(
    tool: Tool[Any],
    parsed: Any,
    observable: Mapping[str, Any],
    tool_use_id: str,
    context: ToolContext,
    deps: PipelineDeps,
    hook: HookPermissionResult | None,
) -> DecisionStep:
    if hook is not None and hook.behavior == "deny":
        reason = DecisionReason(
            "hook", hook.reason or "denied by a PreToolUse hook", source=hook.hook
        )
        message = hook.reason or f"Permission to use {tool.name} was denied by a PreToolUse hook."
        return DecisionStep(PermissionDecision.deny(message, reason))
    decision = await deps.decider.decide(tool, parsed, observable, context)
    if decision.behavior == "passthrough":  # a decider must not pass; treat it as a question
        decision = PermissionDecision.ask(
            decision.message or f"{tool.name} needs permission",
            DecisionReason("check", "no rule decided"),
        )
    if decision.behavior == "deny":
        return DecisionStep(decision)
    explicit_ask = decision.behavior == "ask" and bool(
        decision.reason and decision.reason.kind == "rule"
    )
    if hook is not None and hook.behavior == "allow" and not explicit_ask:
        return DecisionStep(
            PermissionDecision.allow(
                DecisionReason(
                    "hook", hook.reason or "allowed by a PreToolUse hook", source=hook.hook
                ),
                decision.updated_input,
            )
        )
    if hook is not None and hook.behavior == "ask" and decision.behavior == "allow":
        decision = PermissionDecision.ask(
            hook.reason or f"A hook asks before {tool.name} runs",
            DecisionReason("hook", hook.reason or "a PreToolUse hook asked", source=hook.hook),
            decision.suggestions,
        )
    if decision.behavior == "allow":
        return DecisionStep(decision)
    return await _ask_user(tool, parsed, observable, tool_use_id, context, deps, decision)


async def _ask_user(
    tool: Tool[Any],
    parsed: Any,
    observable: Mapping[str, Any],
    tool_use_id: str,
    context: ToolContext,
    deps: PipelineDeps,
    decision: PermissionDecision,
) -> DecisionStep:
    prompter = deps.prompter or DenyingPrompter()
    prompt = PermissionPrompt(
        tool=tool,
        tool_name=tool.name,
        tool_use_id=tool_use_id,
        input=observable,
        message=decision.message,
        reason=decision.reason,
        suggestions=decision.suggestions,
        summary=tool.summary(parsed),
        interaction=_interaction(tool, parsed),
    )
    aborted = PermissionDecision.deny(
        "aborted", DecisionReason("abort", "the turn was interrupted")
    )

    def on_abort() -> None:
        prompt.resolver.resolve(aborted)

    remove = context.abort.add_listener(on_abort)
    try:
        if not prompt.resolver.is_resolved():
            await prompter.ask(prompt)
        final = await prompt.resolver.wait()
    finally:
        remove()
    if final is aborted:
        return DecisionStep(final, aborted=True)
    return DecisionStep(final)


def _interaction(tool: Tool[Any], parsed: Any) -> UserInteraction | None:
    try:
        return tool.user_interaction(parsed)
    except Exception:  # a broken declaration leaves a plain approval, never a crash
        return None
