"""AskUserQuestion, ExitPlanMode and Agent blocks say plain words, live and on resume (the TUI
round 3 report's F4 and F14): never the tool_result written for the model ("Your questions have
been answered…", "User has approved your plan…", the subagent hand-back frame, its agentId and
<usage>). Each tool declares its view (Tool.result_view, own_body) and rebuilds its data from the
transcript's `toolUseResult` (Tool.result_from_record), through the real session and the fake."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.compose import build_session
from app.engine.api import ToolCallUpdated
from app.engine.prompter import EventPrompter
from app.execution.interfaces import PermissionPrompt
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.fakeapi.server import FakeAPI
from tests.support.engine import Collector, fake_env, make_session
from tools.decisions import DecisionReason, PermissionDecision
from tools.interaction import PlanApprovalRequest, QuestionsRequest

pytestmark = pytest.mark.timeout(90)

QUESTION = {
    "questions": [
        {
            "question": "Which database?",
            "header": "Database",
            "options": [
                {"label": "SQLite", "description": "a file"},
                {"label": "Postgres", "description": "a server"},
            ],
            "multiSelect": False,
        }
    ]
}
PLAN = "1. Add the table\n2. Test it"
MODEL_WORDS = (
    "Your questions have been answered",
    "User has approved",
    "## Approved Plan",
    "Subagent hand-back",
    "tools-used-before-summary",
    "agentId",
    "<usage>",
    "tool uses",
)


def _views(events: Any) -> dict[str, tuple[str, str, str]]:
    return {
        e.view.tool_use_id: (
            e.view.status,
            e.view.result.summary if e.view.result else "",
            e.view.result.body if e.view.result else "",
        )
        for e in events
        if isinstance(e, ToolCallUpdated)
        and e.change == "finished"
        and e.view.parent_tool_use_id is None
    }


def answering_session(fake_api: FakeAPI, project: Path) -> Any:
    """Plan mode; the user answers the question with SQLite and approves the plan."""
    collector = Collector()
    holder: dict[str, EventPrompter] = {}

    class Answering:
        async def ask(self, prompt: PermissionPrompt) -> None:
            if isinstance(prompt.interaction, QuestionsRequest):
                answered = {**prompt.input, "answers": {"Which database?": "SQLite"}}
                decision = PermissionDecision.allow(DecisionReason("user", "answered"), answered)
            elif isinstance(prompt.interaction, PlanApprovalRequest):
                decision = PermissionDecision(
                    "allow", reason=DecisionReason("user", "ok"), set_mode="default"
                )
            else:
                decision = PermissionDecision.deny("no", DecisionReason("user", "no"))
            prompt.resolver.resolve(decision)
            holder["p"].remember(await prompt.resolver.wait())

    setup = build_session(
        CliOptions(permission_mode="plan"),
        interactive=True,
        cwd=project,
        env=fake_env(fake_api),
        sink=collector,
        prompter=Answering(),
        trusted=True,
    )
    assert setup.session.parts.rules is not None
    holder["p"] = EventPrompter(setup.session.parts.rules, setup.session)
    return setup.session, collector


async def test_question_plan_and_agent_blocks_say_plain_words_live_and_resumed(
    fake_api: FakeAPI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in fake_env(fake_api).items():
        monkeypatch.setenv(key, value)
    fake_api.load(
        [
            turn_of([tool_use_block("AskUserQuestion", QUESTION, "q")]),
            turn_of([tool_use_block("ExitPlanMode", {"plan": PLAN}, "p")]),
            turn_of(
                [tool_use_block("Agent", {"description": "Make a file", "prompt": "report"}, "a")]
            ),
            text_turn("SUB REPORT: nothing to make"),  # the subagent's answer
            text_turn("MAIN-DONE"),
        ]
    )
    session, events = answering_session(fake_api, project)
    await session.run_turn("plan it")
    await session.close()
    live = _views(events.events)
    assert live["q"] == ("done", "You answered 1 question", "· Which database? → SQLite")
    assert live["p"] == ("done", "Exited plan mode", PLAN)
    status, summary, body = live["a"]
    assert status == "done" and body == "SUB REPORT: nothing to make"
    assert summary.startswith("0 tool uses · ") or summary.startswith("1 tool use · ")
    # The model still reads its own texts.
    sent = str(fake_api.bodies()[-1])
    assert "Your questions have been answered" in sent and "Subagent hand-back" in sent
    for words in MODEL_WORDS[:-1]:
        assert not any(words in s or words in b for _, s, b in live.values()), words

    resumed_session, _ = make_session(
        fake_api, project, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    resumed = _views(resumed_session.history())
    await resumed_session.close()
    assert resumed == live
