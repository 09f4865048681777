"""Pipeline stage 7: combine a hook's opinion, the rules and the user's answer into one decision.

A hook's allow never overrides a deny or an explicit ask rule; a hook's deny always wins; a hook's
ask forces the dialog. In dontAsk mode a hook's allow still lets a call through (as in Claude
Code): dontAsk only turns questions into denials, and the hook answered the question. Where the
dialog would show, PermissionRequest hooks may answer it first. A pending question is a ResolveOnce raced by the prompter and the abort
signal: whoever claims first decides, and a call whose decision lost to an abort never starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from app import debuglog
from app.execution.interfaces import DenyingPrompter, PermissionPrompt
from app.execution.outcome import ends_turn
from app.execution.texts import SUBAGENT_REJECT_MESSAGE
from app.hooks.calls import HookToolCall
from app.hooks.results import HookPermissionResult
from tools.base import Tool, ToolContext, ToolPreview
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
    hook_input: Mapping[str, Any] | None = None,
) -> DecisionStep:
    """`hook_input`: what a PermissionRequest hook reads as `tool_input` (the input as sent;
    `observable` when not given)."""
    if hook is not None and hook.behavior == "deny":
        reason = DecisionReason(
            "hook", hook.reason or "denied by a PreToolUse hook", source=hook.hook
        )
        message = hook.reason or f"Permission to use {tool.name} was denied by a PreToolUse hook."
        return DecisionStep(PermissionDecision.deny(message, reason))
    if hook is not None and hook.behavior == "allow":
        # dontAsk denies what would ask; a hook's allow answers that question (as Claude Code).
        decision = await deps.decider.decide_as_asking(tool, parsed, observable, context)
    else:
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
    return await _ask_user(
        tool, parsed, observable, tool_use_id, context, deps, decision, hook_input
    )


async def redecide(
    tool: Tool[Any],
    parsed: Any,
    observable: Mapping[str, Any],
    context: ToolContext,
    deps: PipelineDeps,
) -> PermissionDecision:
    """The rules' verdict on an input rewritten by whoever approved the call, asking nobody.

    dontAsk is read as default (the approval answered the question dontAsk would have denied);
    a decider that fails counts as a deny, never as an allow."""
    try:
        decision = await deps.decider.decide_as_asking(tool, parsed, observable, context)
    except Exception as exc:
        debuglog.record("permissions", f"re-deciding {tool.name}'s rewritten input raised", exc)
        text = f"the permission check of {tool.name}'s rewritten input failed: {exc}"
        return PermissionDecision.deny(text, DecisionReason("check", text))
    return decision


async def _permission_request_hooks(
    tool: Tool[Any],
    observable: Mapping[str, Any],
    tool_use_id: str,
    decision: PermissionDecision,
    context: ToolContext,
    deps: PipelineDeps,
) -> PermissionDecision | None:
    """PermissionRequest hooks run where the dialog would show (headless too, where nobody
    would answer it); an allow or deny of theirs answers it, as in Claude Code."""
    if not deps.hooks.has_hooks("PermissionRequest"):
        return None
    call = HookToolCall(tool.name, observable, tool_use_id, tool.is_mcp)
    result = await deps.hooks.permission_request(call, decision.suggestions, context)
    if result.behavior == "allow":
        reason = DecisionReason("hook", "allowed by a PermissionRequest hook", source=result.hook)
        return PermissionDecision.allow(reason, result.updated_input)
    if result.behavior == "deny":
        message = result.message or f"Permission to use {tool.name} was denied by a hook."
        return PermissionDecision.deny(message, DecisionReason("hook", message, source=result.hook))
    return None


def _notify(deps: PipelineDeps, message: str, context: ToolContext) -> None:
    """Notification hooks are told lathe waits for the user; they never hold the dialog up."""
    if not deps.hooks.has_hooks("Notification"):
        return
    task = asyncio.ensure_future(deps.hooks.notification(message, "permission_prompt", context))
    _PENDING.add(task)
    task.add_done_callback(_PENDING.discard)


_PENDING: set[asyncio.Future[Any]] = set()


async def _ask_user(
    tool: Tool[Any],
    parsed: Any,
    observable: Mapping[str, Any],
    tool_use_id: str,
    context: ToolContext,
    deps: PipelineDeps,
    decision: PermissionDecision,
    hook_input: Mapping[str, Any] | None = None,
) -> DecisionStep:
    answered = await _permission_request_hooks(
        tool,
        hook_input if hook_input is not None else observable,
        tool_use_id,
        decision,
        context,
        deps,
    )
    if answered is not None:
        return DecisionStep(answered)
    prompter = deps.prompter or DenyingPrompter()
    if not isinstance(prompter, DenyingPrompter):
        _notify(deps, f"Claude needs your permission to use {tool.name}", context)
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
        title=_title(tool, parsed),
        parsed=parsed,
        context=context,
        # No one reads a preview in headless mode: the file is not read for nothing.
        preview=None
        if isinstance(prompter, DenyingPrompter)
        else await _preview(tool, parsed, context),
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
    if prompt.agent and ends_turn(final):
        # A subagent's call: as in Claude Code 2.1.332, the deny is the subagent's to handle
        # (it is told to try another way or report the limitation); neither its turn nor the
        # session's ends.
        final = replace(final, message=SUBAGENT_REJECT_MESSAGE, end_turn=False)
    return DecisionStep(final)


def _title(tool: Tool[Any], parsed: Any) -> str:
    try:
        return tool.user_facing_name(parsed)
    except Exception as exc:
        debuglog.record("executor", f"{tool.name}.user_facing_name raised; its name", exc)
        return tool.name


async def _preview(tool: Tool[Any], parsed: Any, context: ToolContext) -> ToolPreview | None:
    """The tool's preview, read in a worker thread: it may read the file an edit changes."""
    try:
        return await asyncio.to_thread(tool.preview, parsed, context)
    except Exception as exc:  # a broken preview leaves the question without one, never a crash
        debuglog.record("executor", f"{tool.name}.preview raised; asked without a preview", exc)
        return None


def _interaction(tool: Tool[Any], parsed: Any) -> UserInteraction | None:
    try:
        return tool.user_interaction(parsed)
    except Exception as exc:  # a broken declaration leaves a plain approval, never a crash
        debuglog.record("executor", f"{tool.name}.user_interaction raised; a plain approval", exc)
        return None
