"""A resumed conversation as events: its messages become what a live turn would have sent.

User prompts become TurnStarted, assistant text and thinking AssistantMessage, a compaction boundary
CompactionFinished, and each tool_use a queued-then-finished tool-call view carrying its
recorded tool_result, so a resumed session looks like the one that was left. What the user never
typed is not shown as typed: the interrupt markers become Interrupted, a custom command's expansion
the `/name args` the user wrote, and reminders (context, attached files, notifications) nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from app import debuglog
from app.engine import answers
from app.engine.compact_prompt import SUMMARY_INTRO, extract_summary
from app.engine.events import (
    AssistantMessage,
    CompactionFinished,
    EngineEvent,
    Interrupted,
    ToolCallUpdated,
    TurnEnded,
    TurnStarted,
)
from app.engine.recorded_views import with_recorded_change
from app.engine.result_views import call_label
from app.engine.tool_views import ToolCallTracker, content_text
from app.execution.events import ToolFinished, ToolQueued
from app.execution.outcome import CallOutcome, SyntheticReason
from app.execution.texts import (
    INTERRUPTED,
    INTERRUPTED_FOR_TOOL_USE,
    REJECT_MESSAGE,
    REJECT_WITH_FEEDBACK_PREFIX,
    STREAMING_FALLBACK,
)
from tools.base import CallLabel, InputError, Tool

if TYPE_CHECKING:
    from app.engine.session_parts import RecordedResult


def _blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, Mapping)]


def summarize_with(tools: Iterable[Tool[Any]], name: str, tool_input: Mapping[str, Any]) -> str:
    """The session's own tool's summary (a tool that is gone, or bad input: none)."""
    for tool in tools:
        if tool.name == name:
            try:
                return str(tool.summary(tool.parse_input(tool_input)))
            except InputError:  # the model's input did not parse: no summary to show
                return ""
            except Exception as exc:  # a broken declaration: logged, the call shows none
                debuglog.record("engine", f"{tool.name}.summary raised", exc)
                return ""
    return ""


_COMMAND = re.compile(
    r"<command-message>.*?</command-message>\s*<command-name>(?P<name>[^<]*)</command-name>"
    r"\s*(?:<command-args>(?P<args>.*?)</command-args>)?",
    re.S,
)
_SIBLING = re.compile(r"<tool_use_error>Cancelled: parallel tool call \S+ errored</tool_use_error>")


@dataclass
class _UserMessage:
    """What one user message held, sorted: typed prompts, and the interrupt marker if any."""

    prompts: list[str] = field(default_factory=list)
    interrupted: bool | None = None  # None: no marker; True: during tools


def _read_user(blocks: list[Mapping[str, Any]]) -> _UserMessage:
    out = _UserMessage()
    skip_expansion = False
    for block in blocks:
        if block.get("type") != "text":
            continue
        text = str(block.get("text", ""))
        if skip_expansion:  # the command's body, written for the model
            skip_expansion = False
            continue
        stripped = text.strip()
        if not stripped or stripped.startswith("<system-reminder>"):
            continue
        if stripped in (INTERRUPTED, INTERRUPTED_FOR_TOOL_USE):
            out.interrupted = stripped == INTERRUPTED_FOR_TOOL_USE
            continue
        command = _COMMAND.match(stripped)
        if command is not None:
            args = (command.group("args") or "").strip()
            out.prompts.append(f"{command.group('name').strip()} {args}".strip())
            skip_expansion = True
            continue
        out.prompts.append(stripped)
    return out


def _synthetic(content: str, interrupted: bool) -> SyntheticReason | None:
    """Which of lathe's own results a recorded one is (the model's texts, CONTRACT.md)."""
    if content == REJECT_MESSAGE and interrupted:
        return "user_interrupt"
    if content == STREAMING_FALLBACK:
        return "streaming_fallback"
    if _SIBLING.fullmatch(content):
        return "sibling_error"
    return None


def label_with(tool: Tool[Any] | None, tool_input: Mapping[str, Any]) -> CallLabel | None:
    if tool is None:
        return None
    try:
        return tool.label(tool.parse_input(tool_input))
    except InputError:  # the model's input did not parse: no label to show
        return None
    except Exception as exc:  # a broken declaration: logged, the call shows its name
        debuglog.record("engine", f"{tool.name}.label raised", exc)
        return None


def _user_denied(outcome: CallOutcome, content: str, ends: bool) -> CallOutcome:
    """A recorded call the user denied (the transcript's USER_DENIALS), as the live one was."""
    feedback = ""
    if content.startswith(REJECT_WITH_FEEDBACK_PREFIX):
        feedback = content[len(REJECT_WITH_FEEDBACK_PREFIX) :]
    return replace(
        outcome,
        synthetic=None,
        decision=answers.deny(feedback, end_turn=ends),
        permission_denial={"tool_name": outcome.tool_name, "tool_use_id": outcome.tool_use_id},
    )


def _stopper_label(
    stopper: str,
    blocks: list[Mapping[str, Any]],
    known: tuple[Tool[Any], ...],
    labels: Mapping[str, str],
) -> str:
    """The denied call as `Name(subject)`, also when it comes later in the batch."""
    if stopper in labels:
        return labels[stopper]
    for block in blocks:
        if block.get("type") == "tool_use" and str(block.get("id", "")) == stopper:
            name = str(block.get("name", ""))
            raw = block.get("input")
            tool = next((t for t in known if t.name == name), None)
            return call_label(tool, name, raw if isinstance(raw, Mapping) else {})
    return ""


def replay_events(
    messages: Iterable[Mapping[str, Any]],
    tools: Iterable[Tool[Any]] | None = None,
    user_denials: Mapping[str, bool] | None = None,
    cwd: str = "",
    recorded_results: Mapping[str, RecordedResult] | None = None,
) -> list[EngineEvent]:
    """`user_denials`: the calls the user denied, and whether each deny ended its turn (the
    transcript records them, app/transcript_repair.py USER_DENIALS); without them a deny that
    ended a turn replays as the interrupt the model read. `cwd`: the session's folder, where an
    edit's diff is rebuilt from its input when its result data was not kept, or it was denied
    (app/engine/recorded_views.py; "" rebuilds none). `recorded_results`: each call's data as
    the transcript kept it (`toolUseResult`), from which a successful call's tool rebuilds its
    result data, so its view (summary, diff) is the live one, not the model's text."""
    recorded = dict(recorded_results or {})
    messages = list(messages)
    known = tuple(tools or ())
    denials = dict(user_denials or {})
    calls = ToolCallTracker(find=lambda name: next((t for t in known if t.name == name), None))
    results: dict[str, Mapping[str, Any]] = {}
    # Results sent with "[Request interrupted by user for tool use]": the user stopped them.
    interrupted_ids: set[str] = set()
    # The results of a batch a deny ended: the id of that deny, for each of them.
    stopper_of: dict[str, str] = {}
    for message in messages:
        if message.get("role") == "user":
            blocks = _blocks(message)
            stopped = _read_user(blocks).interrupted is True
            ids = [str(b.get("tool_use_id", "")) for b in blocks if b.get("type") == "tool_result"]
            stopper = next((i for i in ids if denials.get(i)), None)
            for block in blocks:
                if block.get("type") == "tool_result":
                    tool_id = str(block.get("tool_use_id", ""))
                    results[tool_id] = block
                    if stopped:
                        interrupted_ids.add(tool_id)
                    if stopper is not None:
                        stopper_of[tool_id] = stopper
    labels: dict[str, str] = {}  # the calls as `Name(subject)`, for "you denied Bash(rm x)"
    events: list[EngineEvent] = []
    for message in messages:
        blocks = _blocks(message)
        if message.get("role") == "user":
            first = str(blocks[0].get("text", "")) if blocks else ""
            if first.startswith(SUMMARY_INTRO):
                # A compaction boundary: the summary that replaced what is above it.
                events.append(CompactionFinished("", 0, 0, extract_summary(first), 0.0))
                continue
            read = _read_user(blocks)
            if read.interrupted is not None:
                # A marker, as the live turn showed it: never as if the user had typed it (and
                # "Denied · ..." when the user's deny ended the turn).
                stopper = next(
                    (
                        stopper_of[str(b.get("tool_use_id", ""))]
                        for b in blocks
                        if b.get("type") == "tool_result"
                        and str(b.get("tool_use_id", "")) in stopper_of
                    ),
                    "",
                )
                events.append(Interrupted(read.interrupted, labels.get(stopper, "")))
            events.extend(TurnStarted(prompt) for prompt in read.prompts)
            continue
        # The thinking too (redacted as well, shown as the live view showed it): a front end
        # that showed it live (the TUI's block, ACP's thoughts) shows it again.
        shown = [b for b in blocks if b.get("type") in ("text", "thinking", "redacted_thinking")]
        if shown:
            events.append(AssistantMessage({"role": "assistant", "content": shown}))
        for block in blocks:
            if block.get("type") != "tool_use":
                continue
            tool_id = str(block.get("id", ""))
            raw_input = block.get("input")
            tool_input: Mapping[str, Any] = raw_input if isinstance(raw_input, Mapping) else {}
            name = str(block.get("name", ""))
            summary = summarize_with(known, name, tool_input)
            tool = next((t for t in known if t.name == name), None)
            labels[tool_id] = call_label(tool, name, tool_input)
            queued = ToolQueued(
                tool_id,
                name,
                tool_input,
                summary,
                False,
                label=label_with(tool, tool_input),
                output_focus=tool.output_focus if tool is not None else "head",
            )
            events.append(calls.queued(queued))
            result = results.get(tool_id)
            if result is not None:
                content = content_text(result.get("content"))
                is_error = bool(result.get("is_error"))
                synthetic = _synthetic(content, tool_id in interrupted_ids) if is_error else None
                denied = (
                    is_error
                    and synthetic is None
                    and content.startswith((REJECT_MESSAGE, REJECT_WITH_FEEDBACK_PREFIX))
                )
                rebuilt = None if is_error else _rebuilt(tool, recorded.get(tool_id), content)
                outcome = CallOutcome(
                    tool_use_id=tool_id,
                    tool_name=name,
                    result_block=dict(result),
                    is_error=is_error,
                    data=rebuilt if rebuilt is not None else result.get("content"),
                    # A rebuilt result is a call that ran: its tool's declared view applies.
                    ran=rebuilt is not None,
                    input=dict(tool_input),
                    synthetic=synthetic,
                    permission_denial={"tool_name": name, "tool_use_id": tool_id}
                    if denied
                    else None,
                )
                stopper = stopper_of.get(tool_id)
                if tool_id in denials and is_error:
                    outcome = _user_denied(outcome, content, denials[tool_id])
                elif stopper is not None and synthetic == "user_interrupt":
                    # Not run because the user denied another call of its batch.
                    calls.stopped_by(stopper, _stopper_label(stopper, blocks, known, labels))
                    outcome = replace(outcome, synthetic="user_denied")
                done = calls.finished(ToolFinished(tool_id, outcome, 0.0))
                # How long it took is not recorded: shown as unknown, never as "0.0s".
                view = replace(done.view, elapsed=None)
                if rebuilt is None:  # no exact record (or denied): the diff from the input
                    view = with_recorded_change(view, tool, cwd)
                events.append(ToolCallUpdated(view, done.change))
    if events:
        # Close the replayed history as a finished turn: nothing is running.
        events.append(TurnEnded(None, "", False, "success", 0))
    return events


def _rebuilt(tool: Tool[Any] | None, recorded: Any, content: str) -> Any | None:
    """The tool's own data for a recorded call (None: no record, no tool, or a declaration that
    failed, which must not cost the resume its history)."""
    if tool is None or recorded is None:
        return None
    try:
        return tool.result_from_record(recorded, content)
    except Exception as exc:
        debuglog.record("engine", f"{tool.name}.result_from_record raised", exc)
        return None
