"""Executor events in, frozen views out: the one place that turns CallOutcomes and
PermissionPrompts into what front ends render (ToolCallView, PermissionQuestion).

The Session passes every event it emits through a ToolCallTracker; front ends receive only its
output.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from app.engine.plain_words import plain_preview, plain_result
from app.engine.views import (
    PermissionQuestion,
    ResultView,
    ToolCallStatus,
    ToolCallUpdated,
    ToolCallView,
)
from app.execution.events import ToolFinished, ToolProgressed, ToolQueued, ToolStarted
from app.execution.interfaces import PermissionPrompt
from app.execution.outcome import CallOutcome
from tools.base import Tool

MAX_RESULT_CHARS = 20_000
MAX_TAIL_CHARS = 4_000


class ToolCallTracker:
    """The calls of a session that have not finished, as views."""

    def __init__(self, parent_tool_use_id: str | None = None) -> None:
        self._calls: dict[str, ToolCallView] = {}
        # A subagent's session: its calls are shown under the Agent call that runs it.
        self._parent = parent_tool_use_id

    def view(self, tool_use_id: str) -> ToolCallView | None:
        return self._calls.get(tool_use_id)

    def queued(self, event: ToolQueued) -> ToolCallUpdated:
        view = ToolCallView(
            event.tool_use_id,
            event.name,
            event.summary,
            dict(event.input),
            concurrency_safe=event.concurrency_safe,
            parent_tool_use_id=self._parent,
        )
        self._calls[event.tool_use_id] = view
        return ToolCallUpdated(view, "queued")

    def started(self, event: ToolStarted) -> ToolCallUpdated:
        view = self._get(event.tool_use_id, event.name)
        view = replace(view, status="running", started_at=event.at)
        self._calls[event.tool_use_id] = view
        return ToolCallUpdated(view, "started")

    def progressed(self, event: ToolProgressed) -> ToolCallUpdated:
        progress = event.progress
        view = self._get(event.tool_use_id, "")
        tail = (view.output_tail + progress.output)[-MAX_TAIL_CHARS:] if progress.output else None
        view = replace(
            view,
            progress_text=progress.text,
            fraction=progress.fraction if progress.fraction is not None else view.fraction,
            output_tail=view.output_tail if tail is None else tail,
        )
        self._calls[event.tool_use_id] = view
        return ToolCallUpdated(view, "progressed", progress.output)

    def finished(self, event: ToolFinished) -> ToolCallUpdated:
        outcome = event.outcome
        view = self._calls.pop(event.tool_use_id, None) or ToolCallView(
            event.tool_use_id, outcome.tool_name, "", dict(outcome.input)
        )
        tail = getattr(outcome.data, "output_tail", None)
        view = replace(
            view,
            status=outcome_status(outcome),
            elapsed=event.elapsed,
            result=plain_result(result_view(outcome)),
            # The tool's own final tail (Bash keeps its last lines); else none: the result shows.
            output_tail=tail[-MAX_TAIL_CHARS:] if isinstance(tail, str) else "",
        )
        return ToolCallUpdated(view, "finished")

    def asked(self, question: PermissionQuestion) -> ToolCallUpdated | None:
        view = self._calls.get(question.tool_use_id)
        if view is None:
            return None
        view = replace(view, status="awaiting_approval", preview=question.preview)
        self._calls[question.tool_use_id] = view
        return ToolCallUpdated(view, "awaiting_approval")

    def answered(self, tool_use_id: str) -> ToolCallUpdated | None:
        """The question was answered: the call goes back to where it was (it finishes next if
        the answer was a deny)."""
        view = self._calls.get(tool_use_id)
        if view is None or view.status != "awaiting_approval":
            return None
        status: ToolCallStatus = "running" if view.started_at is not None else "queued"
        view = replace(view, status=status)
        self._calls[tool_use_id] = view
        return ToolCallUpdated(view, "answered")

    def _get(self, tool_use_id: str, name: str) -> ToolCallView:
        return self._calls.get(tool_use_id) or ToolCallView(tool_use_id, name, "")


def outcome_status(outcome: CallOutcome) -> ToolCallStatus:
    if outcome.synthetic == "user_interrupt":
        return "interrupted"
    if outcome.permission_denial is not None:
        return "denied"
    return "failed" if outcome.is_error else "done"


def result_view(outcome: CallOutcome) -> ResultView:
    """The result as the screen shows it: the tool_result's text, or the diff of an edit."""
    text = content_text(outcome.result_block.get("content"))[:MAX_RESULT_CHARS]
    diff = getattr(outcome.data, "diff", None)
    if isinstance(diff, str) and diff and not outcome.is_error:
        return ResultView(text, diff, "diff")
    return ResultView(text, text, "error" if outcome.is_error else "text")


def content_text(content: Any) -> str:
    """The text of a tool_result's content (a string or a list of content blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, Mapping):
                if block.get("type") == "text":
                    parts.append(str(block.get("text", "")))
                else:
                    parts.append(f"[{block.get('type', 'block')}]")
        return "\n".join(parts)
    return "" if content is None else str(content)


def message_text(message: Mapping[str, Any]) -> str:
    """The text blocks of a message, joined."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        str(b.get("text", ""))
        for b in content
        if isinstance(b, Mapping) and b.get("type") == "text"
    )


# -- permission questions --------------------------------------------------------------------------


def question_for(prompt: PermissionPrompt) -> PermissionQuestion:
    """The PermissionPrompt as front ends see it; answering it resolves the prompt. Its preview is
    the tool's own (`Tool.preview`, computed off the loop by the pipeline's permission step)."""
    return PermissionQuestion(
        tool_use_id=prompt.tool_use_id,
        tool_name=prompt.tool_name,
        title=prompt.summary,
        input=dict(prompt.input),
        message=prompt.message,
        reason=prompt.reason,
        suggestions=tuple(prompt.suggestions),
        resolver=prompt.resolver,
        preview=plain_preview(prompt.preview),
        destructive=_destructive(prompt.tool, prompt.input),
        interaction=prompt.interaction,
        agent=prompt.agent,
    )


def _destructive(tool: Tool[Any] | None, tool_input: Mapping[str, Any]) -> bool:
    """The tool's own declaration for this input (an input that does not parse shows no warning:
    the call will be refused at its schema stage anyway)."""
    if tool is None:
        return False
    try:
        return bool(tool.is_destructive(tool.parse_input(tool_input)))
    except Exception:
        return False
