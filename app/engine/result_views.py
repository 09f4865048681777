"""What a finished call shows, in plain words: the engine's side of the tool block.

The model reads rejection texts, `<tool_use_error>` tags and sibling-cancel notices written for
it; the person reads "Denied by you", "not run: you denied Bash(touch x)" and the error itself.
Built here, from the CallOutcome, so no front end parses model-facing text. A call that ran and
succeeded shows what its tool declares (`Tool.result_view`: the summary line, a diff, an image);
its text body stays what the model got (a spilled output's preview, a hook's rewrite).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app import debuglog
from app.engine.views import ResultView
from app.execution.outcome import CallOutcome, ends_turn
from app.execution.texts import REJECT_MESSAGE, REJECT_WITH_FEEDBACK_PREFIX
from app.transcript_repair import USER_DENIALS
from tools.base import InputError, Tool

MAX_RESULT_CHARS = 200_000

_ERROR_TAGS = re.compile(r"</?tool_use_error>")

ToolFinder = Callable[[str], Tool[Any] | None]


def call_label(tool: Tool[Any] | None, name: str, tool_input: Mapping[str, Any]) -> str:
    """A call named in plain words as `Name(subject)`: "Bash(touch x)", "Edit(/src/a.py)"."""
    text = ""
    if tool is not None:
        try:
            text = tool.label(tool.parse_input(tool_input)).text
        except InputError:  # bad input: the name alone
            text = ""
        except Exception as exc:  # a broken declaration: logged, the name alone
            debuglog.record("engine", f"{tool.name}.label raised", exc)
            text = ""
    return f"{name}({text})" if text else name


def denied_label(find: ToolFinder, outcome: CallOutcome) -> str:
    return call_label(find(outcome.tool_name), outcome.tool_name, outcome.input)


def screen_text(text: str) -> str:
    """A model-facing error as a person reads it: without the `<tool_use_error>` wrapper."""
    return _ERROR_TAGS.sub("", text).strip()


def result_view(
    outcome: CallOutcome,
    tool: Tool[Any] | None = None,
    labels: Mapping[str, str] | None = None,
    stopped_by: str = "",
) -> ResultView:
    """The result as the screen shows it. `tool`: the call's tool, whose declaration a call that
    succeeded shows; `labels`: recent calls by id (`Name(subject)`), for the calls that did not
    run because of another one; `stopped_by`: the id of the call whose deny ended the turn."""
    labels = labels or {}
    synthetic = outcome.synthetic
    if synthetic == "user_interrupt":
        return ResultView("Interrupted by you")
    if synthetic == "user_denied":
        stopped = labels.get(stopped_by, "")
        return ResultView(f"not run: you denied {stopped}" if stopped else "not run")
    if synthetic == "sibling_error":
        failed = labels.get(_sibling_of(outcome), "")
        return ResultView(
            f"not run: {failed} failed" if failed else "not run: a parallel call failed"
        )
    if synthetic == "streaming_fallback":
        return ResultView("not run: the response broke off and was sent again")
    denial = outcome.decision if outcome.permission_denial is not None else None
    if denial is not None and denial.reason is not None and denial.reason.kind == "user":
        said = denial.feedback.strip()
        # A rejected plan reads as Claude Code's "Rejected Claude's plan" (tui-r5 F10).
        head = "Rejected the plan" if outcome.tool_name == "ExitPlanMode" else "Denied by you"
        return ResultView(head + (f" · you said: {said}" if said else ""))
    text = content_text(outcome.result_block.get("content"))[:MAX_RESULT_CHARS]
    if outcome.is_error and denial is None:
        # A resumed conversation has only the texts the model read: say them in plain words.
        replayed = _replayed(text)
        if replayed:
            return ResultView(replayed, replayed, "error")
    if denial is not None:
        why = denial.reason.describe() if denial.reason is not None else screen_text(text)
        return ResultView(f"Denied: {why}", screen_text(text), "error")
    declared = None if outcome.is_error else declared_view(tool, outcome)
    if declared is not None and declared.kind in ("diff", "image"):
        summary = declared.summary or text
        return ResultView(summary, declared.body, declared.kind, change=declared.change)
    if declared is not None and declared.own_body:
        # Plain words the tool wrote for the screen: never the model's text (F4, F14).
        return ResultView(declared.summary, declared.body, "text", own_body=True)
    full_path = (declared.full_path if declared is not None else None) or outcome.persisted_path
    if outcome.is_error:
        shown = screen_text(text)
        return ResultView(shown, shown, "error", full_path=full_path)
    summary = declared.summary if declared is not None and declared.summary else text
    return ResultView(summary, text, "text", full_path=full_path)


def declared_view(tool: Tool[Any] | None, outcome: CallOutcome) -> ResultView | None:
    """The tool's own view of a call that ran (None: no tool, nothing ran, no result data, or
    a broken declaration, which must not cost the call its result line)."""
    if tool is None or not outcome.ran or outcome.data is None:
        return None
    try:
        return tool.result_view(outcome.data, outcome.is_error)
    except Exception as exc:
        debuglog.record("engine", f"{tool.name}.result_view raised", exc)
        return None


def user_denials(outcomes: Sequence[Any]) -> dict[str, Any]:
    """The transcript's USER_DENIALS field for a line of tool results (none when the user
    denied none of them): the calls the user denied, and the one whose deny ended the turn, which
    the model-facing texts cannot tell from an interrupt."""
    found = [
        {"tool_use_id": o.tool_use_id, "endsTurn": ends_turn(o.decision)}
        for o in outcomes
        if isinstance(o, CallOutcome)
        and o.permission_denial is not None
        and o.decision is not None
        and o.decision.reason is not None
        and o.decision.reason.kind == "user"
    ]
    return {USER_DENIALS: found} if found else {}


def _replayed(text: str) -> str:
    if text == REJECT_MESSAGE:
        return "Rejected by you"
    if text.startswith(REJECT_WITH_FEEDBACK_PREFIX):
        return "Rejected by you · you said: " + text[len(REJECT_WITH_FEEDBACK_PREFIX) :].strip()
    if re.fullmatch(
        r"<tool_use_error>Cancelled: parallel tool call \S+ errored</tool_use_error>", text
    ):
        return "not run: a parallel call failed"
    return ""


def _sibling_of(outcome: CallOutcome) -> str:
    """The failed call's id, from the sibling-cancel text the model reads."""
    text = content_text(outcome.result_block.get("content"))
    match = re.search(r"parallel tool call (\S+) errored", text)
    return match.group(1) if match else ""


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
