"""One tool call: the ten-stage pipeline.

Stages 1-5 assume the model's input may be wrong, malicious or probing; 6-10 execute and notify.
  1. schema parse            2. validate_input          3. speculative classifier (optional)
  4. strip internal fields   5. backfill an observable copy
  6. PreToolUse hooks        7. permission decision     8. settle the call input
  9. tool.call               10. PostToolUse / PostToolUseFailure hooks
Every path returns exactly one CallOutcome: a tool_use always gets exactly one tool_result.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app import debuglog
from app.execution.interfaces import (
    HookRunner,
    HookToolCall,
    NoHooks,
    PermissionDecider,
    PermissionPrompt,
    Prompter,
    ToolCheckDecider,
)
from app.execution.outcome import CallOutcome, error_outcome
from app.execution.output_budget import apply_budget
from app.execution.permission_step import DecisionStep, decide_permission, redecide
from app.execution.texts import (
    REJECT_MESSAGE,
    deferred_hint,
    empty_result,
    no_such_tool,
    tool_use_error,
)
from app.hooks.results import (
    HookAdditionalContext,
    HookBlockingError,
    HookMessage,
    HookPermissionResult,
    HookPreventContinuation,
    HookStop,
    HookStoppedContinuation,
    HookStopReason,
    HookUpdatedInput,
    HookUpdatedMcpOutput,
    PostToolHookItem,
)
from tools.base import (
    InputError,
    Tool,
    ToolContext,
    ToolError,
    ToolProgress,
    ToolResult,
)
from tools.decisions import PermissionDecision, ValidationResult
from tools.registry import find_tool


def _default_schema_sent(name: str) -> bool:
    return True


@dataclass
class PipelineDeps:
    """What the pipeline consults. Defaults make a working, fail-closed pipeline with no hooks."""

    tools: Sequence[Tool[Any]]
    fallback_tools: Sequence[Tool[Any]] = ()
    hooks: HookRunner = field(default_factory=NoHooks)
    decider: PermissionDecider = field(default_factory=ToolCheckDecider)
    prompter: Prompter | None = None
    # False for a deferred tool whose schema the model has not loaded (ToolSearch hint on errors).
    schema_sent: Callable[[str], bool] = _default_schema_sent

    def find(self, name: str) -> Tool[Any] | None:
        tool = find_tool(self.tools, name)
        if tool is None:
            # Old names (aliases) of base tools still resolve, so old transcripts work; deny rules
            # are still applied at stage 7, so this cannot resurrect a denied tool.
            candidate = find_tool(self.fallback_tools, name)
            if candidate is not None and name in candidate.aliases:
                tool = candidate
        return tool


async def run_tool_use(
    block: Mapping[str, Any],
    parent_message: Mapping[str, Any],
    context: ToolContext,
    deps: PipelineDeps,
    on_progress: Callable[[ToolProgress], None],
    on_running: Callable[[], None] | None = None,
) -> CallOutcome:
    """Run one tool_use block through all ten stages. `on_running` is called once, right before
    stage 9 (the tool's `call`): the call was allowed and really runs now."""
    tool_use_id = str(block.get("id", ""))
    name = str(block.get("name", ""))
    raw_input = block.get("input")
    tool = deps.find(name)
    if tool is None:
        return error_outcome(tool_use_id, name, no_such_tool(name))
    if not isinstance(raw_input, Mapping):
        return error_outcome(
            tool_use_id, tool.name, tool_use_error("Error: the tool input must be a JSON object")
        )
    call = _Call(tool, tool_use_id, dict(raw_input), parent_message, context, deps, on_progress)
    call.on_running = on_running
    try:
        return await call.run()
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a bug in a tool's declarations must not lose the tool_result
        debuglog.record(
            "executor",
            f"the pipeline of {tool.name} ({tool_use_id}) raised; the "
            "call ends as an error tool_result",
            exc,
        )
        return error_outcome(
            tool_use_id, tool.name, tool_use_error(f"Error: {type(exc).__name__}: {exc}")
        )


class _Call:
    def __init__(
        self,
        tool: Tool[Any],
        tool_use_id: str,
        raw: dict[str, Any],
        parent_message: Mapping[str, Any],
        context: ToolContext,
        deps: PipelineDeps,
        on_progress: Callable[[ToolProgress], None],
    ) -> None:
        self.tool = tool
        self.id = tool_use_id
        self.raw = raw
        self.parent_message = parent_message
        self.context = context
        self.deps = deps
        self.on_progress = on_progress
        self.notices: list[HookMessage] = []
        self.extra: list[dict[str, Any]] = []
        self.prevent: str | None = None
        self.hook_input: dict[str, Any] = {}
        self.on_running: Callable[[], None] | None = None

    def _error(self, content: str, **kw: Any) -> CallOutcome:
        out = error_outcome(self.id, self.tool.name, content, input=self.raw)
        out.notices = tuple(self.notices)
        out.extra_content = tuple(self.extra)
        out.prevent_continuation = self.prevent
        for key, value in kw.items():
            setattr(out, key, value)
        return out

    def _parse(self, raw: Mapping[str, Any]) -> Any:
        return self.tool.parse_input(raw)

    async def run(self) -> CallOutcome:
        tool = self.tool
        # Stage 4 (done first, defence in depth): the model must never set internal fields.
        for internal in tool.internal_fields:
            self.raw.pop(internal, None)
        # Stage 1: schema.
        try:
            parsed = self._parse(self.raw)
        except InputError as exc:
            message = exc.message
            if not self.deps.schema_sent(tool.name):
                message += deferred_hint(tool.name)
            return self._error(tool_use_error(message))
        # Stage 2: the tool's own business rules.
        self.hook_input = self._as_sent(self.raw)
        validation = await tool.validate_input(parsed, self.context)
        if not validation.ok:
            return self._refused(validation)
        # Stage 3: a speculative classifier would start here (none configured).
        # Stage 5: observers see a normalised copy; the call keeps the original.
        observable = self._observable(parsed)
        # Stage 6: PreToolUse hooks. They read the input as the model sent it (Claude Code's
        # tool_input, measured: no defaults filled in), its paths made absolute.
        hook_call = HookToolCall(tool.name, self.hook_input, self.id, tool.is_mcp)
        hook_decision: HookPermissionResult | None = None
        updated: Mapping[str, Any] | None = None
        for item in await self.deps.hooks.pre_tool_use(hook_call, self.context):
            if isinstance(item, HookMessage):
                self.notices.append(item)
            elif isinstance(item, HookPermissionResult):
                hook_decision = item
            elif isinstance(item, HookUpdatedInput):
                updated = item.input
            elif isinstance(item, HookPreventContinuation | HookStopReason):
                self.prevent = item.reason or "stopped by a hook"
            elif isinstance(item, HookAdditionalContext):
                self.extra.append(_context_block(tool.name, item.text))
            elif isinstance(item, HookStop):
                return self._error(tool_use_error(item.reason or "Blocked by a PreToolUse hook"))
        if self.context.abort.aborted:
            return self._error(REJECT_MESSAGE, synthetic="user_interrupt")
        # A hook's updatedInput replaces the input: parse and validate it like the model's.
        if updated is not None:
            try:
                parsed = self._parse(updated)
            except InputError as exc:
                return self._error(
                    tool_use_error(f"A hook's updatedInput is invalid: {exc.message}")
                )
            self.hook_input = self._as_sent(updated)
            validation = await tool.validate_input(parsed, self.context)
            if not validation.ok:
                return self._refused(validation)
            observable = self._observable(parsed)
        # Stage 7: the permission decision.
        step: DecisionStep = await decide_permission(
            tool,
            parsed,
            observable,
            self.id,
            self.context,
            self.deps,
            hook_decision,
            hook_input=self.hook_input,
        )
        if step.aborted:
            return self._error(REJECT_MESSAGE, synthetic="user_interrupt")
        decision = step.decision
        if decision.behavior != "allow":
            return self._error(
                decision.message or REJECT_MESSAGE,
                decision=decision,
                # As Claude Code: the input as the model (or a hook's updatedInput) gave it, not
                # the parsed form with its defaults filled in (`run_in_background: false`).
                permission_denial=self._denial(),
            )
        # Stage 8: settle the input (a user, a PermissionRequest hook or an SDK callback may have
        # rewritten it on approval). The approval covers the rewrite, but not past a deny: the new
        # input is parsed, validated and decided again, and only a deny (a rule, a protected path,
        # the tool's own check) stops it; an "ask" is what the answer just answered.
        decided_on = dict(updated if updated is not None else self.raw)
        if decision.updated_input is not None and dict(decision.updated_input) != decided_on:
            try:
                parsed = self._parse(decision.updated_input)
            except InputError as exc:
                return self._error(tool_use_error(exc.message))
            self.hook_input = self._as_sent(decision.updated_input)
            validation = await tool.validate_input(parsed, self.context)
            if not validation.ok:
                return self._refused(validation)
            observable = self._observable(parsed)
            again = await redecide(tool, parsed, observable, self.context, self.deps)
            if again.behavior == "deny":
                return self._error(
                    again.message or REJECT_MESSAGE,
                    decision=again,
                    permission_denial=self._denial(),
                )
        # Stage 9: the one action.
        return await self._call(parsed, observable, decision)

    def _denial(self) -> dict[str, Any]:
        """The call as the result's permission_denials list it (Claude Code's shape: the input
        as sent, paths absolute)."""
        return {
            "tool_name": self.tool.name,
            "tool_use_id": self.id,
            "tool_input": dict(self.hook_input),
        }

    def _refused(self, validation: ValidationResult) -> CallOutcome:
        """A validation failure; one a permission rule caused (a denied path) is a denial."""
        if validation.permission_denied:
            return self._error(tool_use_error(validation.message), permission_denial=self._denial())
        return self._error(tool_use_error(validation.message))

    def _as_sent(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        sent = dict(raw)
        self.tool.backfill_observable_input(sent, self.context)
        return sent

    def _observable(self, parsed: Any) -> dict[str, Any]:
        observable = self.tool.dump_input(parsed)
        self.tool.backfill_observable_input(observable, self.context)
        return observable

    async def _call(
        self, parsed: Any, observable: dict[str, Any], decision: PermissionDecision
    ) -> CallOutcome:
        tool = self.tool
        if self.on_running is not None:
            # Past the hooks and the decision: the one moment the call really starts running.
            self.on_running()
        started = time.monotonic()

        def ran() -> HookToolCall:  # the post hooks are told how long the tool ran
            ms = int((time.monotonic() - started) * 1000)
            return HookToolCall(tool.name, self.hook_input, self.id, tool.is_mcp, ms)

        try:
            result = await tool.call(
                parsed, self.context, self._can_use_tool, self.parent_message, self.on_progress
            )
        except asyncio.CancelledError:
            raise
        except ToolError as exc:
            return await self._failed(ran(), exc.message, exc.data, decision)
        except Exception as exc:
            debuglog.record(
                "executor", f"{tool.name}.call ({self.id}) raised; the model reads the error", exc
            )
            return await self._failed(ran(), f"Error: {type(exc).__name__}: {exc}", None, decision)
        hook_call = ran()
        if result.is_error:
            failure_text = _content_text(tool.to_result_content(result.data))
            outcome = await self._failed(hook_call, failure_text, result.data, decision)
            outcome.context_modifier = result.context_modifier
            return outcome
        data = result.data
        self.extra.extend(dict(block) for block in result.extra_content)
        post: list[PostToolHookItem]
        if tool.is_mcp:
            # MCP: hooks first, they may rewrite the external server's output; then record.
            post = await self.deps.hooks.post_tool_use(hook_call, data, self.context)
            for item in post:
                if isinstance(item, HookUpdatedMcpOutput):
                    data = item.output
            outcome = self._record(data, result, decision, is_error=False)
        else:
            # Built-ins: record the result first, then tell the hooks.
            outcome = self._record(data, result, decision, is_error=False)
            post = await self.deps.hooks.post_tool_use(hook_call, data, self.context)
        self._apply_post(post, outcome)
        return outcome

    async def _failed(
        self, hook_call: HookToolCall, message: str, data: Any, decision: PermissionDecision
    ) -> CallOutcome:
        outcome = self._record(data if data is not None else message, None, decision, True, message)
        post = await self.deps.hooks.post_tool_use_failure(hook_call, message, self.context)
        self._apply_post(post, outcome)
        return outcome

    def _record(
        self,
        data: Any,
        result: ToolResult | None,
        decision: PermissionDecision,
        is_error: bool,
        error_text: str | None = None,
    ) -> CallOutcome:
        tool = self.tool
        if error_text is not None:
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": self.id,
                "content": error_text,
                "is_error": True,
            }
        else:
            block = tool.to_result_block(data, self.id, is_error)
        if block.get("content") in ("", [], None):
            block["content"] = empty_result(tool.name)
        block, persisted = apply_budget(
            block, tool.max_result_size_chars, self.context.session_dir, self.id
        )
        return CallOutcome(
            tool_use_id=self.id,
            tool_name=tool.name,
            result_block=block,
            is_error=is_error,
            data=data,
            context_modifier=result.context_modifier if result else None,
            decision=decision,
            persisted_path=persisted,
            ran=True,
            input=dict(self.raw),
        )

    def _apply_post(self, items: list[PostToolHookItem], outcome: CallOutcome) -> None:
        for item in items:
            if isinstance(item, HookMessage):
                self.notices.append(item)
            elif isinstance(item, HookBlockingError):
                self.extra.append(
                    _text_block(f"PostToolUse hook feedback for {self.tool.name}:\n{item.text}")
                )
            elif isinstance(item, HookAdditionalContext):
                self.extra.append(_context_block(self.tool.name, item.text))
            elif isinstance(item, HookStoppedContinuation):
                self.prevent = item.reason or "stopped by a hook"
        outcome.notices = tuple(self.notices)
        outcome.extra_content = tuple(self.extra)
        outcome.prevent_continuation = self.prevent

    async def _can_use_tool(
        self, tool: Tool[Any], raw_input: Mapping[str, Any], context: ToolContext
    ) -> PermissionDecision:
        """What a tool calls to ask permission for a nested action: rules, mode, then the user."""
        parsed = tool.parse_input(raw_input)
        observable = tool.dump_input(parsed)
        tool.backfill_observable_input(observable, context)
        step = await decide_permission(
            tool, parsed, observable, context.tool_use_id, context, self.deps, None
        )
        return step.decision


def _text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _context_block(tool_name: str, text: str) -> dict[str, Any]:
    return _text_block(
        f"<system-reminder>\nHook context for {tool_name}: {text}\n</system-reminder>"
    )


def _content_text(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


__all__ = ["PermissionPrompt", "PipelineDeps", "run_tool_use"]
