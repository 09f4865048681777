"""Executor events in, frozen views out: the one place that turns CallOutcomes and
PermissionPrompts into what front ends render (ToolCallView, PermissionQuestion).

The Session passes every event it emits through a ToolCallTracker; front ends receive only its
output.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from app import debuglog
from app.engine.choices import Offer
from app.engine.plain_words import plain_preview, plain_result
from app.engine.result_views import MAX_RESULT_CHARS as MAX_RESULT_CHARS
from app.engine.result_views import ToolFinder, call_label, result_view
from app.engine.result_views import content_text as content_text
from app.engine.result_views import denied_label as denied_label
from app.engine.views import (
    CallKind,
    CallLocation,
    PermissionQuestion,
    ToolCallStatus,
    ToolCallUpdated,
    ToolCallView,
)
from app.execution.events import (
    CALL_CLOCK,
    ToolFinished,
    ToolProgressed,
    ToolQueued,
    ToolRunning,
    ToolStarted,
)
from app.execution.interfaces import PermissionPrompt
from app.execution.outcome import CallOutcome, ends_turn
from tools.base import InputError, Tool

MAX_TAIL_CHARS = 4_000
# Recent calls' labels, for "not run: you denied Bash(touch x)" on the rest of their batch.
_LABELS_KEPT = 256


def _no_tools(name: str) -> Tool[Any] | None:
    return None


class ToolCallTracker:
    """The calls of a session that have not finished, as views.

    Elapsed time counts from the start of execution (the "running" change, once the call was
    allowed): its permission step and the time it waited for the user's answer are not part of it
    (a question a running tool asks for a nested action is taken off too)."""

    def __init__(
        self,
        parent_tool_use_id: str | None = None,
        find: ToolFinder = _no_tools,
        clock: Callable[[], float] = CALL_CLOCK,
    ) -> None:
        self._calls: dict[str, ToolCallView] = {}
        # A subagent's session: its calls are shown under the Agent call that runs it.
        self._parent = parent_tool_use_id
        self._find = find
        self._clock = clock
        # How long each call waited for an answer while it was running (taken off its elapsed).
        self._waited: dict[str, float] = {}
        self._asked_at: dict[str, float] = {}
        # The status a call had when its question opened, restored by the answer.
        self._asked_from: dict[str, ToolCallStatus] = {}
        self._labels: OrderedDict[str, str] = OrderedDict()
        self._stopped_by = ""
        # Calls whose question was answered with a deny or closed by an interrupt: never run.
        self._unrun: set[str] = set()

    def view(self, tool_use_id: str) -> ToolCallView | None:
        return self._calls.get(tool_use_id)

    def queued(self, event: ToolQueued) -> ToolCallUpdated:
        tool = self._find(event.name)
        kind, locations = _declared(tool, event.input)
        view = ToolCallView(
            event.tool_use_id,
            event.name,
            event.summary,
            dict(event.input),
            concurrency_safe=event.concurrency_safe,
            parent_tool_use_id=self._parent,
            label=event.label,
            output_focus=event.output_focus,
            kind=kind,
            locations=locations,
            display_name=event.title,
        )
        self._calls[event.tool_use_id] = view
        text = event.label.text if event.label is not None else ""
        self._remember(event.tool_use_id, f"{event.name}({text})" if text else event.name)
        return ToolCallUpdated(view, "queued")

    def started(self, event: ToolStarted) -> ToolCallUpdated:
        """Taken by the executor: being checked, not running (no `started_at` yet)."""
        view = self._get(event.tool_use_id, event.name)
        view = replace(view, status="checking")
        self._calls[event.tool_use_id] = view
        return ToolCallUpdated(view, "started")

    def running(self, event: ToolRunning) -> ToolCallUpdated:
        """Allowed, and its tool runs now: the call's clock starts here."""
        view = self._get(event.tool_use_id, event.name)
        view = replace(view, status="running", started_at=event.at)
        self._calls[event.tool_use_id] = view
        return ToolCallUpdated(view, "running")

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
        tool_use_id = event.tool_use_id
        view = self._calls.pop(tool_use_id, None) or ToolCallView(
            tool_use_id, outcome.tool_name, "", dict(outcome.input)
        )
        tool = self._find(outcome.tool_name)
        if tool_use_id not in self._labels:
            self._remember(tool_use_id, call_label(tool, outcome.tool_name, outcome.input))
        if ends_turn(outcome.decision):
            self._stopped_by = tool_use_id
        waited = self._waited.pop(tool_use_id, 0.0)
        asked = self._asked_at.pop(tool_use_id, None) is not None
        self._asked_from.pop(tool_use_id, None)
        unrun = tool_use_id in self._unrun or asked  # closed at its question: it never ran
        self._unrun.discard(tool_use_id)
        tail = _final_tail(tool, outcome)
        view = replace(
            view,
            status=outcome_status(outcome),
            # A call that never started, or was refused, has no elapsed time: it did not run.
            elapsed=None
            if view.started_at is None or outcome.permission_denial is not None or unrun
            else max(0.0, event.elapsed - waited),
            result=plain_result(result_view(outcome, tool, self._labels, self._stopped_by)),
            # The tool's own final tail (Bash keeps its last lines); else what it printed before
            # it stopped (an interrupted command keeps the output seen so far).
            output_tail=tail[-MAX_TAIL_CHARS:] if isinstance(tail, str) else view.output_tail,
        )
        return ToolCallUpdated(view, "finished")

    def stopped_by(self, tool_use_id: str, label: str) -> None:
        """A replayed batch whose deny ended the turn: the calls that did not run because of it
        name it, whichever comes first in the batch ("not run: you denied Bash(rm x)")."""
        self._remember(tool_use_id, label)
        self._stopped_by = tool_use_id

    def asked(self, question: PermissionQuestion) -> ToolCallUpdated | None:
        view = self._calls.get(question.tool_use_id)
        if view is None:
            return None
        self._asked_at[question.tool_use_id] = self._clock()
        if view.status != "awaiting_approval":
            self._asked_from[question.tool_use_id] = view.status
        view = replace(view, status="awaiting_approval", preview=question.preview)
        self._calls[question.tool_use_id] = view
        return ToolCallUpdated(view, "awaiting_approval")

    def answered(self, tool_use_id: str, allowed: bool = True) -> ToolCallUpdated | None:
        """The question was answered: the call goes back to where it was ("checking" before it
        runs: the "running" change follows if it is allowed; it finishes next if the answer was a
        deny). A question a running tool asked: its wait is taken off its clock. Not `allowed` (a
        deny, or the turn interrupted while it asked): the call never runs, so it has no time."""
        view = self._calls.get(tool_use_id)
        if view is None or view.status != "awaiting_approval":
            return None
        if not allowed:
            self._unrun.add(tool_use_id)
        now = self._clock()
        asked = self._asked_at.pop(tool_use_id, now)
        started_at = view.started_at
        if started_at is not None:
            self._waited[tool_use_id] = self._waited.get(tool_use_id, 0.0) + (now - asked)
            started_at += now - asked
        before = self._asked_from.pop(tool_use_id, "queued")
        status: ToolCallStatus = "running" if view.started_at is not None else before
        view = replace(view, status=status, started_at=started_at)
        self._calls[tool_use_id] = view
        return ToolCallUpdated(view, "answered")

    def _get(self, tool_use_id: str, name: str) -> ToolCallView:
        return self._calls.get(tool_use_id) or ToolCallView(tool_use_id, name, "")

    def _remember(self, tool_use_id: str, label: str) -> None:
        self._labels[tool_use_id] = label
        while len(self._labels) > _LABELS_KEPT:
            self._labels.popitem(last=False)


def _declared(
    tool: Tool[Any] | None, tool_input: Mapping[str, Any]
) -> tuple[CallKind, tuple[CallLocation, ...]]:
    """The tool's kind of work and the files this call touches (its declarations, no I/O). An
    input that does not parse touches nothing known: the call fails at its schema stage."""
    if tool is None:
        return "other", ()
    try:
        kind = tool.call_kind()
    except Exception as exc:  # a broken declaration: logged, shown as "other"
        debuglog.record("engine", f"{tool.name}.call_kind raised", exc)
        kind = "other"
    try:
        return kind, tuple(tool.locations(tool.parse_input(tool_input)))
    except InputError:
        return kind, ()
    except Exception as exc:
        debuglog.record("engine", f"{tool.name}.locations raised", exc)
        return kind, ()


def _final_tail(tool: Tool[Any] | None, outcome: CallOutcome) -> str | None:
    """The tool's declared end of its output (`Tool.output_tail`), if it keeps one."""
    if tool is None:
        return None
    try:
        return tool.output_tail(outcome.data)
    except Exception as exc:  # a broken declaration: logged, the streamed tail stays
        debuglog.record("engine", f"{tool.name}.output_tail raised", exc)
        return None


def outcome_status(outcome: CallOutcome) -> ToolCallStatus:
    if outcome.synthetic in ("user_interrupt", "user_denied", "sibling_error"):
        return "interrupted"
    if outcome.permission_denial is not None:
        return "denied"
    return "failed" if outcome.is_error else "done"


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


def question_for(prompt: PermissionPrompt, offer: Offer | None = None) -> PermissionQuestion:
    """The PermissionPrompt as front ends see it; answering it resolves the prompt. Its preview is
    the tool's own (`Tool.preview`, computed off the loop by the pipeline's permission step).
    `offer`: the choices the engine proved (app/engine/choices.py); None offers the decider's
    suggestions as they are."""
    tool = prompt.tool
    edit = tool is not None and tool.permission_kind == "path_write" and offer is not None
    return PermissionQuestion(
        tool_use_id=prompt.tool_use_id,
        tool_name=prompt.tool_name,
        title=prompt.summary,
        input=dict(prompt.input),
        message=prompt.message,
        reason=prompt.reason,
        suggestions=tuple(prompt.suggestions) if offer is None else offer.always_rules,
        resolver=prompt.resolver,
        preview=plain_preview(prompt.preview),
        destructive=_destructive(
            prompt.tool, prompt.input, prompt.context.cwd if prompt.context else None
        ),
        interaction=prompt.interaction,
        agent=prompt.agent,
        edit=edit,
        session_rules=offer.session_rules if offer is not None else (),
        accept_edits=offer.accept_edits if offer is not None else False,
    )


def _destructive(tool: Tool[Any] | None, tool_input: Mapping[str, Any], cwd: str | None) -> bool:
    """The tool's own declaration for this input, in the folder the call runs in when known (an
    input that does not parse shows no warning: the call will be refused at its schema stage
    anyway)."""
    if tool is None:
        return False
    try:
        parsed = tool.parse_input(tool_input)
        return bool(
            tool.is_destructive(parsed) if cwd is None else tool.is_destructive_at(parsed, cwd)
        )
    except InputError:
        return False
    except Exception as exc:  # a broken declaration: logged, no warning shown
        debuglog.record("engine", f"{tool.name}.is_destructive raised", exc)
        return False
