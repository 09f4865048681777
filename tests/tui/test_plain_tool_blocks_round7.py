"""Skill, TaskStop, ToolSearch and WebFetch blocks as the TUI draws them, live and resumed: the
tools' own lines ("Loaded skill", "sleep 300 · stopped", "Loaded NotebookEdit", "Received 1.1KB
(200 OK)" and the answer), never the texts written for the model. Claude Code 2.1.332 on the
same fake (tmux) shows "Skill(greet) ⎿ Loaded skill", "Stop Task ⎿ sleep 300 · stopped",
"Fetch(url) ⎿ Received 1.1KB (200 OK)" and no ToolSearch block."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.events import AssistantMessage, TurnEnded, TurnStarted
from app.engine.replay import replay_events
from app.engine.tool_views import ToolCallTracker
from app.execution.events import ToolFinished, ToolQueued, ToolRunning, ToolStarted
from app.transcript import tool_use_result
from app.tui.history import ReplayedHistory
from tests.tui import scenes
from tests.tui.conftest import make_app, outcome
from tools.base import Tool
from tools.bash import BashResult, BashTool
from tools.notebook_edit import NotebookEditTool
from tools.skill import SkillTool
from tools.task_stop import TaskStopTool
from tools.tool_search import ToolSearchTool
from tools.web_fetch import Fetched, WebFetchTool

TOOLS: dict[str, Tool[Any]] = {
    t.name: t for t in (SkillTool(), BashTool(), TaskStopTool(), ToolSearchTool(), WebFetchTool())
}
URL = "https://docs.example.com/guide"
ANSWER = "The guide says to run `make test` before each commit."
MODEL_TEXT = (
    f"URL: {URL}\nStatus: 200 OK\nContent-Type: text/html\nSize: 1126 bytes\n"
    f"Title: Guide\n\n{ANSWER}"
)
MODEL_WORDS = (
    "Launching skill",
    "Successfully stopped",
    "<function>",
    "Their definitions follow",
    "Content-Type",
    "Status: 200",
    "BashOutput",
)


def _calls() -> list[tuple[str, str, dict[str, Any], Any]]:
    definition = NotebookEditTool().api_definition()
    found = {
        "query": "select:NotebookEdit",
        "matches": ["NotebookEdit"],
        "missing": [],
        "total_deferred_tools": 3,
        "definitions": [definition],
    }
    stopped = {
        "message": "Successfully stopped shell: bash_1a2b3c4d (Sleep in the background)",
        "shell_id": "bash_1a2b3c4d",
        "command": "sleep 300",
        "status": "stopped",
    }
    page = Fetched(URL, 200, "OK", 1126, MODEL_TEXT, ANSWER)
    background = BashResult(
        text="Command running in background with ID: bash_1a2b3c4d. Read its output with "
        'BashOutput (bash_id "bash_1a2b3c4d"); stop it with TaskStop (shell_id "bash_1a2b3c4d").',
        background_id="bash_1a2b3c4d",
    )
    return [
        ("s1", "Skill", {"skill": "greet"}, {"success": True, "commandName": "greet"}),
        ("b1", "Bash", {"command": "sleep 300", "run_in_background": True}, background),
        ("k1", "TaskStop", {"shell_id": "bash_1a2b3c4d"}, stopped),
        ("t1", "ToolSearch", {"query": "select:NotebookEdit"}, found),
        ("w1", "WebFetch", {"url": URL, "prompt": "How do I test?"}, page),
    ]


def live_blocks() -> list[Any]:
    tracker = ToolCallTracker(find=TOOLS.get)
    out: list[Any] = [TurnStarted("load the guide")]
    for tid, name, tool_input, data in _calls():
        tool = TOOLS[name]
        parsed = tool.parse_input(tool_input)
        label = tool.label(parsed)
        queued = ToolQueued(tid, name, tool_input, tool.summary(parsed), False, label=label)
        out.append(tracker.queued(queued))
        out.append(tracker.started(ToolStarted(tid, name, 990.0)))
        out.append(tracker.running(ToolRunning(tid, name, 990.0)))
        text = tool.to_result_content(data)
        done = outcome(tid, name, text, data=data)  # type: ignore[arg-type]
        out.append(tracker.finished(ToolFinished(tid, done, 1.0)))
    out.append(
        AssistantMessage({"role": "assistant", "content": [{"type": "text", "text": "MAIN-DONE"}]})
    )
    out.append(TurnEnded("end_turn", "", False, "success", 1))
    return out


def resumed_history() -> ReplayedHistory:
    """The same calls as a transcript keeps them: the model's texts in the tool_results, the
    data as `toolUseResult` (the shape app/transcript.py writes)."""
    calls = _calls()
    uses = [{"type": "tool_use", "id": t, "name": n, "input": i} for t, n, i, _ in calls]
    results = []
    recorded = {}
    for tid, name, _, data in calls:
        content = TOOLS[name].to_result_content(data)
        results.append({"type": "tool_result", "tool_use_id": tid, "content": content})
        recorded[tid] = tool_use_result(outcome(tid, name, "", data=data))
    messages = [
        {"role": "user", "content": "load the guide"},
        {"role": "assistant", "content": uses},
        {"role": "user", "content": results},
        {"role": "assistant", "content": [{"type": "text", "text": "MAIN-DONE"}]},
    ]
    events = replay_events(messages, list(TOOLS.values()), recorded_results=recorded)
    return ReplayedHistory(tuple(events))


def _shown(app: Any) -> str:
    from widgets.tool_block import ToolBlock

    states = [b.state for b in app.main.conversation.query(ToolBlock)]
    return "\n".join(f"{s.label} {s.result_summary} {s.result_text} {s.outcome}" for s in states)


@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
async def test_blocks_show_no_model_words(resumed: bool) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await scenes.settle(app, pilot)
        scenes.feed(app, [resumed_history()] if resumed else live_blocks())
        await scenes.settle(app, pilot)
        shown = _shown(app)
        for words in MODEL_WORDS:
            assert words not in shown, words
        lines = ("Loaded skill", "sleep 300 · stopped", "Loaded NotebookEdit")
        for line in (*lines, "Running in the background (bash_1a2b3c4d)"):
            assert line in shown, line
        assert "Received 1.1KB (200 OK)" in shown and ANSWER in shown


SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("resumed", [False, True], ids=["live", "resumed"])
def test_plain_blocks_round7_snapshot(
    snap_compare: Any, size: tuple[int, int], resumed: bool
) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        await scenes.settle(app, pilot)
        scenes.feed(app, [resumed_history()] if resumed else live_blocks())
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=before)
