"""`--permission-prompt-tool stdio`: the SDK's can_use_tool callback answers what would have been a
permission dialog.

The session asks through the front-end API (a PermissionRequested event with its
PermissionQuestion); the question goes out as a `can_use_tool` control request in Claude Code's
shape (tool_name, display_name, input, description, title, permission_suggestions, blocked_path,
tool_use_id, decision_reason). An allow may carry `updatedInput` (the call runs with it) and
`updatedPermissions` (every PermissionUpdate of Claude Code's: rules added, replaced or removed,
the mode, working folders, for the session or saved; app/engine/permission_updates.py; one lathe
cannot read denies the call, naming it); a deny carries the message the model is told, and `interrupt: true` also stops the
turn. A question answered first by someone else (the turn was interrupted) is withdrawn with a
`control_cancel_request`. An answer lathe cannot read is a deny (fail closed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.engine.api import (
    PermissionQuestion,
    PermissionUpdate,
    UpdateError,
    parse_updates,
    rule_from_wire,
)
from app.protocol.control import ControlChannel, ControlError
from app.protocol.flags import BYPASS_REFUSED, MODE_ALIASES
from tools.decisions import DecisionReason, PermissionDecision

__all__ = ["StdioPrompter", "rule_from_wire", "rule_to_wire", "suggestions_to_wire"]


def rule_to_wire(rule: str) -> dict[str, str]:
    """`Bash(npm test:*)` -> `{"toolName": "Bash", "ruleContent": "npm test:*"}`."""
    name, paren, rest = rule.partition("(")
    if paren and rest.endswith(")"):
        return {"toolName": name, "ruleContent": rest[:-1]}
    return {"toolName": rule}


def suggestions_to_wire(rules: Sequence[str]) -> list[dict[str, Any]]:
    if not rules:
        return []
    return [
        {
            "type": "addRules",
            "rules": [rule_to_wire(r) for r in rules],
            "behavior": "allow",
            "destination": "localSettings",
        }
    ]


class StdioPrompter:
    """Answers the session's permission questions through the control channel."""

    def __init__(
        self,
        channel: ControlChannel,
        notify: Callable[[str], None],
        interrupt: Callable[[], None],
        on_state: Callable[[str], None] = lambda state: None,
        allow_bypass: bool = False,
    ) -> None:
        self.allow_bypass = allow_bypass
        self.channel = channel
        self.notify = notify
        self.interrupt = interrupt
        self.on_state = on_state
        self._tasks: set[asyncio.Task[None]] = set()
        # tool_use id -> the input as the model wrote it. The question carries the parsed input
        # with the tool's defaults filled in (`run_in_background: false`); Claude Code hands the
        # callback the model's own input.
        self._model_inputs: dict[str, dict[str, Any]] = {}

    def saw_message(self, message: Mapping[str, Any]) -> None:
        """An assistant message: remember its tool calls' inputs until they are asked about."""
        for block in message.get("content") or []:
            if isinstance(block, Mapping) and block.get("type") == "tool_use":
                tool_input = block.get("input")
                if isinstance(block.get("id"), str) and isinstance(tool_input, Mapping):
                    self._model_inputs[block["id"]] = dict(tool_input)
        while len(self._model_inputs) > 256:  # a subagent's calls interleave: keep the newest
            del self._model_inputs[next(iter(self._model_inputs))]

    def _input(self, question: PermissionQuestion) -> dict[str, Any]:
        return self._model_inputs.get(question.tool_use_id) or dict(question.input)

    def request_body(self, question: PermissionQuestion) -> dict[str, Any]:
        body: dict[str, Any] = {
            "tool_name": question.tool_name,
            "display_name": question.tool_name,
            "input": self._input(question),
            "permission_suggestions": suggestions_to_wire(question.suggestions),
            "tool_use_id": question.tool_use_id,
        }
        description = question.input.get("description")
        if isinstance(description, str) and description:
            body["description"] = description
        if question.title:
            body["title"] = question.title
        if question.reason is not None:
            body["decision_reason"] = question.reason_text
        path = question.input.get("file_path") or question.input.get("notebook_path")
        if isinstance(path, str) and path:
            body["blocked_path"] = path
        return body

    def handle(self, question: PermissionQuestion) -> None:
        """From the session's sink (which must not block): ask in a task of its own."""
        task = asyncio.ensure_future(self.ask(question))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def ask(self, question: PermissionQuestion) -> None:
        self.on_state("requires_action")
        request_id, answer = self.channel.send("can_use_tool", self.request_body(question))
        decided: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def answered(_decision: PermissionDecision) -> None:
            if not decided.done():
                decided.set_result(None)

        question.on_answered(answered)
        waiting: set[asyncio.Future[Any]] = {answer, decided}
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.on_state("running")
        if not answer.done():
            # Answered elsewhere (the turn was interrupted): withdraw the question.
            self.channel.cancel(request_id)
            return
        try:
            response = answer.result()
        except (ControlError, asyncio.CancelledError) as exc:
            response = {"behavior": "deny", "message": f"The SDK's can_use_tool failed: {exc}"}
        decision, stop = self.decision(question, response)
        if question.answer(decision) and stop:
            self.interrupt()

    def decision(
        self, question: PermissionQuestion, response: Mapping[str, Any]
    ) -> tuple[PermissionDecision, bool]:
        behavior = response.get("behavior")
        if behavior == "allow":
            updated = response.get("updatedInput")
            if updated is not None and not isinstance(updated, Mapping):
                return self._deny(question, "the SDK's updatedInput is not an object"), False
            sent = self._input(question)
            changed = (
                updated
                if isinstance(updated, Mapping) and updated not in (sent, question.input)
                else None
            )
            try:
                updates = self.updates(response.get("updatedPermissions"))
            except UpdateError as exc:
                # Fail closed: the program expected a change lathe cannot make.
                text = f"lathe cannot apply the SDK's updatedPermissions: {exc}"
                self.notify(f"can_use_tool: {text}; the call is denied")
                return self._deny(question, f"{text}. The call was not run."), False
            return (
                PermissionDecision(
                    "allow",
                    reason=DecisionReason("user", "allowed by the SDK's can_use_tool callback"),
                    updated_input=changed,
                    updates=tuple(updates),
                ),
                False,
            )
        if behavior == "deny":
            message = response.get("message")
            text = message if isinstance(message, str) and message else ""
            return self._deny(question, text), bool(response.get("interrupt"))
        return self._deny(question, f"the SDK's answer has no valid behavior ({behavior!r})"), False

    def _deny(self, question: PermissionQuestion, message: str) -> PermissionDecision:
        text = message or f"Permission to use {question.tool_name} was denied."
        return PermissionDecision.deny(
            text, DecisionReason("user", "denied by the SDK's can_use_tool")
        )

    def updates(self, raw: Any) -> tuple[PermissionUpdate, ...]:
        """Claude Code's PermissionUpdate list, checked whole (UpdateError names the first one
        lathe cannot read). A setMode to bypassPermissions in a session not launched for it is
        refused as set_permission_mode refuses it: the call is allowed, the mode stays."""
        if isinstance(raw, list):  # "auto" runs as default (flags.MODE_ALIASES)
            raw = [_aliased(item) for item in raw]
        kept = []
        for update in parse_updates(raw):
            refused = update.mode == "bypassPermissions" and not self.allow_bypass
            if update.kind == "setMode" and refused:
                self.notify(f"can_use_tool: {BYPASS_REFUSED}; the mode is unchanged")
                continue
            kept.append(update)
        return tuple(kept)


def _aliased(update: Any) -> Any:
    if isinstance(update, Mapping) and update.get("type") == "setMode":
        mode = update.get("mode")
        if isinstance(mode, str) and mode in MODE_ALIASES:
            return {**update, "mode": MODE_ALIASES[mode]}
    return update
