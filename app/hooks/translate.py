"""The translation layer: what the hooks of one event said, as the items the engine switches on.

It translates and aggregates, it never decides: a PreToolUse `allow` becomes a
HookPermissionResult("allow") that pipeline stage 7 weighs against the rules (where a deny or an
explicit ask rule still wins). Outputs are read in configuration order (lowest precedence first),
so where one value must be chosen (updatedInput) the highest-precedence source's hook wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from app.hooks.output import HookOutput
from app.hooks.results import (
    HookAdditionalContext,
    HookBlockingError,
    HookCancelled,
    HookMessage,
    HookPermissionResult,
    HookPreventContinuation,
    HookStoppedContinuation,
    HookUpdatedInput,
    HookUpdatedMcpOutput,
    PermissionRequestHookResult,
    PostToolHookItem,
    PreCompactHookResult,
    PreToolHookItem,
    PromptHookResult,
    SessionEndHookResult,
    SessionStartHookResult,
    StopHookResult,
)

Behavior = Literal["allow", "deny", "ask", "defer"]
# Several hooks disagreeing: the most careful opinion wins.
_RANK: dict[Behavior, int] = {"deny": 0, "defer": 1, "ask": 2, "allow": 3}
# What a hook may add to the model's context; a runaway hook must not flood the conversation.
CONTEXT_CAP_CHARS = 10_000


def _cap(text: str) -> str:
    if len(text) <= CONTEXT_CAP_CHARS:
        return text
    return text[:CONTEXT_CAP_CHARS] + f"\n… [hook output truncated at {CONTEXT_CAP_CHARS} chars]"


def _blocking_text(out: HookOutput) -> str:
    return f"[{out.handler.shown}]: {out.block}"


def _messages(outputs: Sequence[HookOutput]) -> list[HookMessage]:
    return [m for out in outputs for m in out.messages]


def translate_pre_tool_use(outputs: Sequence[HookOutput], tool_name: str) -> list[PreToolHookItem]:
    items: list[PreToolHookItem] = list(_messages(outputs))
    opinions: list[tuple[Behavior, str, str]] = []
    updated: HookUpdatedInput | None = None
    for out in outputs:
        if out.cancelled:
            continue  # the pipeline sees the abort itself and rejects the call
        label = out.handler.label
        if out.block is not None:
            opinions.append(
                ("deny", f"PreToolUse:{tool_name} hook error: {_blocking_text(out)}", label)
            )
            continue
        behavior = _pre_behavior(out)
        if behavior is not None:
            reason = out.permission_reason or out.reason
            if behavior == "deny" and not reason:
                reason = f"Blocked by {label}"
            opinions.append((behavior, reason, label))
        if out.updated_input is not None and behavior not in ("deny", "defer"):
            updated = HookUpdatedInput(out.updated_input, label)
        if out.additional_context:
            items.append(HookAdditionalContext(_cap(out.additional_context), label))
        if not out.continue_:
            items.append(HookPreventContinuation(out.stop_reason, label))
    if opinions:
        best = min(_RANK[b] for b, _, _ in opinions)
        winners = [(b, r, h) for b, r, h in opinions if _RANK[b] == best]
        reason = "; ".join(r for _, r, _ in winners if r)
        hooks = ", ".join(h for _, _, h in winners)
        items.append(HookPermissionResult(winners[0][0], reason, hooks))
        if winners[0][0] == "deny":
            updated = None
    if updated is not None:
        items.append(updated)
    return items


def _pre_behavior(out: HookOutput) -> Behavior | None:
    if out.permission_decision in _RANK:
        return out.permission_decision  # type: ignore[return-value]
    # Legacy top-level decision, still written by older Claude Code hooks.
    if out.decision == "block":
        return "deny"
    if out.decision == "approve":
        return "allow"
    return None


def translate_post_tool_use(outputs: Sequence[HookOutput], is_mcp: bool) -> list[PostToolHookItem]:
    items: list[PostToolHookItem] = list(_messages(outputs))
    for out in outputs:
        label = out.handler.label
        if out.cancelled:
            items.append(HookCancelled(label))
            continue
        if out.block is not None:
            items.append(HookBlockingError(_blocking_text(out), label))
        elif out.decision == "block":
            items.append(HookBlockingError(out.reason or f"Blocked by {label}", label))
        if out.additional_context:
            items.append(HookAdditionalContext(_cap(out.additional_context), label))
        if out.has_mcp_output:
            if is_mcp:
                items.append(HookUpdatedMcpOutput(out.updated_mcp_output, label))
            else:
                items.append(
                    HookMessage(
                        f"{label}: updatedMCPToolOutput ignored: not an MCP tool", "warning", label
                    )
                )
        if not out.continue_:
            items.append(HookStoppedContinuation(out.stop_reason, label))
    return items


def translate_user_prompt_submit(
    outputs: Sequence[HookOutput], prompt: str = ""
) -> PromptHookResult:
    """`result_text`: Claude Code 2.1.332's words for a kept-back prompt, its `-p` result
    (measured, ext-r3 F5): "UserPromptSubmit operation blocked by hook:\nREASON\n\nOriginal
    prompt: PROMPT" (exit 2's REASON is "[command]: stderr" with stderr's newline), or for a
    `continue: false` "Operation stopped by hook: STOP_REASON"."""
    messages = _messages(outputs)
    reasons: list[str] = []
    shown: list[str] = []
    stopped: list[str] = []
    context: list[str] = []
    for out in outputs:
        if out.block is not None:
            reasons.append(out.block)
            shown.append(_blocking_text(out) + "\n")
        elif not out.continue_:
            reasons.append(out.stop_reason or f"Stopped by {out.handler.label}")
            stopped.append(reasons[-1])
        elif out.decision == "block":
            reasons.append(out.reason or f"Blocked by {out.handler.label}")
            shown.append(reasons[-1])
        if out.additional_context:
            context.append(_cap(out.additional_context))
        elif out.succeeded and out.plain_stdout:
            context.append(_cap(out.plain_stdout))
    if stopped:
        result_text = "Operation stopped by hook: " + "\n".join(stopped)
    elif shown:
        result_text = "UserPromptSubmit operation blocked by hook:\n" + "\n".join(shown)
        result_text += f"\n\nOriginal prompt: {prompt}"
    else:
        result_text = ""
    return PromptHookResult(
        blocked=bool(reasons),
        reason="\n".join(reasons),
        result_text=result_text,
        additional_context=() if reasons else tuple(context),
        messages=tuple(messages),
        cancelled=any(out.cancelled for out in outputs),
    )


def translate_stop(outputs: Sequence[HookOutput]) -> StopHookResult:
    messages = _messages(outputs)
    reasons: list[str] = []
    prevent: list[str] = []
    for out in outputs:
        if not out.continue_:
            prevent.append(out.stop_reason or f"Stopped by {out.handler.label}")
        elif out.block is not None:
            reasons.append(out.block)
        elif out.decision == "block":
            reasons.append(out.reason or f"{out.handler.label} asked the model to continue")
    if prevent:
        return StopHookResult(
            False, "", "\n".join(prevent), tuple(messages), any(o.cancelled for o in outputs)
        )
    return StopHookResult(
        should_continue=bool(reasons),
        reason="\n".join(reasons),
        messages=tuple(messages),
        cancelled=any(out.cancelled for out in outputs),
    )


def translate_session_start(outputs: Sequence[HookOutput]) -> SessionStartHookResult:
    messages = _messages(outputs)
    context: list[str] = []
    for out in outputs:
        if out.block is not None:
            # Exit 2 cannot block a session start; the user sees the message.
            messages.append(HookMessage(f"{out.handler.label}: {out.block}", "warning"))
        if out.additional_context:
            context.append(_cap(out.additional_context))
        elif out.succeeded and out.plain_stdout:
            context.append(_cap(out.plain_stdout))
    return SessionStartHookResult(
        tuple(context), tuple(messages), any(out.cancelled for out in outputs)
    )


def translate_post_tool_batch(outputs: Sequence[HookOutput]) -> SessionStartHookResult:
    """Only a JSON `additionalContext` reaches the model (as for PostToolUse), in Claude Code's
    words ("PostToolBatch hook additional context: ...")."""
    messages = _messages(outputs)
    context = [
        f"PostToolBatch hook additional context: {_cap(out.additional_context)}"
        for out in outputs
        if out.additional_context
    ]
    for out in outputs:
        if out.block is not None:
            messages.append(HookMessage(f"{out.handler.label}: {out.block}", "warning"))
    return SessionStartHookResult(
        tuple(context), tuple(messages), any(out.cancelled for out in outputs)
    )


def translate_session_end(outputs: Sequence[HookOutput]) -> SessionEndHookResult:
    messages = _messages(outputs)
    for out in outputs:
        if out.block is not None:
            messages.append(HookMessage(f"{out.handler.label}: {out.block}", "warning"))
    return SessionEndHookResult(tuple(messages), any(out.cancelled for out in outputs))


def translate_pre_compact(outputs: Sequence[HookOutput]) -> PreCompactHookResult:
    messages = _messages(outputs)
    reasons: list[str] = []
    for out in outputs:
        if out.block is not None:
            reasons.append(out.block)
        elif out.decision == "block" or not out.continue_:
            reasons.append(out.reason or out.stop_reason or f"blocked by {out.handler.label}")
    return PreCompactHookResult(
        "\n".join(reasons) if reasons else None,
        tuple(messages),
        any(out.cancelled for out in outputs),
    )


def translate_permission_request(outputs: Sequence[HookOutput]) -> PermissionRequestHookResult:
    messages = _messages(outputs)
    cancelled = any(out.cancelled for out in outputs)
    allow: PermissionRequestHookResult | None = None
    for out in outputs:
        if out.cancelled:
            continue
        label = out.handler.label
        if out.block is not None or out.permission_decision == "deny":
            message = out.block or out.permission_reason or f"Denied by {label}"
            return PermissionRequestHookResult("deny", message, None, label, tuple(messages))
        if out.permission_decision == "allow":
            allow = PermissionRequestHookResult(
                "allow", out.permission_reason, out.updated_input, label, tuple(messages)
            )
    if allow is not None:
        return allow
    return PermissionRequestHookResult(messages=tuple(messages), cancelled=cancelled)
