"""session/request_permission: the question the TUI's dialog would ask, asked of the client.

The engine announces a question (PermissionRequested) and waits for its answer; this bridge
sends the client the options ACP names (allow_once, allow_always, reject_once, reject_always),
maps the chosen one back to the same decisions the dialog gives (so "always" writes the rule to
.lathe/settings.local.toml exactly as the TUI does; "always reject" saves it there as a deny
rule), and
answers the question. A cancelled request, a client that goes away or answers with an option
it was never offered is a rejection: fail closed. A session/cancel resolves the question first
(the engine's abort race); the client's late answer then changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from app import debuglog
from app.acp.updates import ToolView, diff_content
from app.engine.api import PermissionQuestion, answers
from tools.decisions import DecisionReason, PermissionDecision
from tools.interaction import PlanApprovalRequest, QuestionsRequest

Ask = Callable[[ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]]

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT_ONCE = "reject_once"
REJECT_ALWAYS = "reject_always"
PLAN_PREFIX = "plan:"
NO_QUESTIONS = (
    "The editor lathe runs in (ACP) cannot show multiple-choice questions. Do not ask again; "
    "decide from what you know, state your assumptions, or ask in your reply."
)


@dataclass(frozen=True)
class Question:
    tool_call: ToolCallUpdate
    options: list[PermissionOption]


def question_for(prompt: PermissionQuestion, view: ToolView) -> Question | None:
    """The options to offer, or None when the client cannot answer this kind of question."""
    interaction = prompt.interaction
    title = view.title
    kind = view.kind
    # The diff the engine read off the loop for this question (the real file's text), else the
    # one the call's view already holds.
    preview = prompt.preview.change if prompt.preview is not None else None
    content = diff_content(preview or view.call.change)
    if isinstance(interaction, QuestionsRequest):
        return None
    if isinstance(interaction, PlanApprovalRequest):
        kind = "switch_mode"
        title = "Ready to code?"
        content = None
        options = [
            PermissionOption(
                option_id=PLAN_PREFIX + mode,
                name=(
                    "Yes, and auto-accept edits"
                    if mode == "acceptEdits"
                    else "Yes, and manually approve edits"
                ),
                kind="allow_always" if mode == "acceptEdits" else "allow_once",
            )
            for mode in interaction.modes
        ]
        options.append(
            PermissionOption(option_id=REJECT_ONCE, name="No, keep planning", kind="reject_once")
        )
        from app.acp.updates import text_content

        plan_content = [text_content(interaction.plan)]
        return Question(
            ToolCallUpdate(
                tool_call_id=prompt.tool_use_id,
                title=title,
                kind=kind,
                status="pending",
                content=plan_content,  # type: ignore[arg-type]
                raw_input=dict(prompt.input),
            ),
            options,
        )
    options = [PermissionOption(option_id=ALLOW_ONCE, name="Allow", kind="allow_once")]
    if prompt.suggestions:
        label = ", ".join(prompt.suggestions)
        options.append(
            PermissionOption(
                option_id=ALLOW_ALWAYS, name=f"Always allow {label}", kind="allow_always"
            )
        )
    options.append(PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"))
    if prompt.suggestions:
        options.append(
            PermissionOption(
                option_id=REJECT_ALWAYS, name=f"Always reject {label}", kind="reject_always"
            )
        )
    return Question(
        ToolCallUpdate(
            tool_call_id=prompt.tool_use_id,
            title=title,
            kind=kind,
            status="pending",
            content=content,  # type: ignore[arg-type]
            locations=view.locations(),
            raw_input=dict(prompt.input),
        ),
        options,
    )


def rejected() -> PermissionDecision:
    return answers.deny()


def decision_for(
    prompt: PermissionQuestion, question: Question, response: RequestPermissionResponse | None
) -> PermissionDecision:
    outcome = response.outcome if response is not None else None
    if not isinstance(outcome, AllowedOutcome):
        return rejected()  # cancelled, or no answer at all
    chosen = outcome.option_id
    if chosen not in {o.option_id for o in question.options}:
        return rejected()  # an option we never offered allows nothing
    # The engine's choice-to-decision mapping, as the TUI's dialog uses it (allow_always saves
    # the question's rules, its `suggestions`).
    if chosen in (ALLOW_ONCE, ALLOW_ALWAYS):
        return prompt.decision_for("allow_once" if chosen == ALLOW_ONCE else "allow_always") or (
            rejected()
        )
    if chosen == REJECT_ALWAYS:
        return answers.deny_always(tuple(prompt.suggestions))
    if chosen.startswith(PLAN_PREFIX):
        return answers.approve_plan(chosen.removeprefix(PLAN_PREFIX))
    return rejected()


async def answer(prompt: PermissionQuestion, view: ToolView, ask: Ask) -> None:
    """Ask the client and answer the question with its answer (unless Ctrl+C's abort won)."""
    question = question_for(prompt, view)
    if question is None:
        prompt.answer(
            PermissionDecision.deny(NO_QUESTIONS, DecisionReason("headless", NO_QUESTIONS))
        )
        return
    response: RequestPermissionResponse | None
    try:
        response = await ask(question.tool_call, question.options)
    except Exception as exc:  # the client failed or went away: nobody allowed it (a deny)
        debuglog.record("acp", "session/request_permission failed; the call is denied", exc)
        response = None
    prompt.answer(decision_for(prompt, question, response))
