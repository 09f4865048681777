"""AskUserQuestion, ExitPlanMode and Agent blocks as the TUI draws them: the tools' own words
("You answered 1 question", "Exited plan mode", the subagent's report), never the texts written
for the model (the TUI round 3 report's F4 and F14), at 120x40, 80x24 and 60x20."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.events import AssistantMessage, TurnEnded, TurnStarted
from app.engine.tool_views import ToolCallTracker
from app.execution.events import ToolFinished, ToolQueued, ToolRunning, ToolStarted
from tests.tui import scenes
from tests.tui.conftest import make_app, outcome
from tools.agent import AgentTool, hand_back_text
from tools.ask_user_question import Answered, AskUserQuestionTool, result_text
from tools.base import Tool
from tools.exit_plan_mode import ExitPlanModeTool, PlanApproved, approved_text
from tools.subagent import SubagentOutcome

TOOLS: dict[str, Tool[Any]] = {
    t.name: t for t in (AgentTool(), AskUserQuestionTool(), ExitPlanModeTool())
}
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
PLAN = "1. Add the users table\n2. Write the migration\n3. Test it"
REPORT = "Made sub_sentinel in the project folder."
MODEL_WORDS = (
    "Your questions have been answered",
    "User has approved",
    "Subagent hand-back",
    "agentId",
    "<usage>",
    "tool uses",
)


def plain_blocks() -> list[Any]:
    tracker = ToolCallTracker(find=TOOLS.get)
    out: list[Any] = [TurnStarted("plan the users table")]
    tool = TOOLS["AskUserQuestion"]
    asked = tool.parse_input({**QUESTION, "answers": {"Which database?": "SQLite"}})
    answered = Answered(tuple(asked.questions), {"Which database?": "SQLite"})
    report = SubagentOutcome("a1b2", "general-purpose", REPORT, 1, 8106, 3884, ("Bash",))
    calls = [
        (
            "q1",
            "AskUserQuestion",
            QUESTION,
            answered,
            result_text(list(asked.questions), answered.answers),
        ),
        ("p1", "ExitPlanMode", {"plan": PLAN}, PlanApproved(PLAN), approved_text(PLAN)),
        (
            "a1",
            "Agent",
            {"description": "Make a file", "prompt": "touch it"},
            report,
            hand_back_text(report),
        ),
    ]
    for tid, name, tool_input, data, text in calls:
        parsed = TOOLS[name].parse_input(tool_input)
        label = TOOLS[name].label(parsed)
        out.append(
            tracker.queued(
                ToolQueued(tid, name, tool_input, TOOLS[name].summary(parsed), False, label=label)
            )
        )
        out.append(tracker.started(ToolStarted(tid, name, 990.0)))
        out.append(tracker.running(ToolRunning(tid, name, 990.0)))
        out.append(tracker.finished(ToolFinished(tid, outcome(tid, name, text, data=data), 1.0)))
    out.append(
        AssistantMessage({"role": "assistant", "content": [{"type": "text", "text": "MAIN-DONE"}]})
    )
    out.append(TurnEnded("end_turn", "", False, "success", 1))
    return out


async def test_blocks_show_no_model_words() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await scenes.settle(app, pilot)
        scenes.feed(app, plain_blocks())
        await scenes.settle(app, pilot)
        from widgets.tool_block import ToolBlock

        states = [b.state for b in app.main.conversation.query(ToolBlock)]
        shown = " ".join(
            f"{s.label} {s.result_summary} {s.result_text} {s.outcome}" for s in states
        )
        for words in MODEL_WORDS:
            assert words not in shown, words
        assert "Exited plan mode" in shown and "· Which database? → SQLite" in shown
        assert REPORT in shown and "1 tool use ·" in shown


SIZES = [
    pytest.param((120, 40), id="120x40"),
    pytest.param((80, 24), id="80x24"),
    pytest.param((60, 20), id="60x20"),
]


@pytest.mark.parametrize("size", SIZES)
def test_plain_tool_blocks_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        await scenes.settle(app, pilot)
        scenes.feed(app, plain_blocks())
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=before)
