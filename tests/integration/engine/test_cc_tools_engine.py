"""WebSearch, AskUserQuestion, ExitPlanMode and NotebookEdit through the real session, the real SDK
and the HTTP fake of the API (which validates every request, server tool blocks included)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from app.cli import CliOptions
from app.compose import build_session
from app.engine.events import Notice
from app.engine.prompter import EventPrompter as EnginePrompter
from app.execution.interfaces import PermissionPrompt
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.support.engine import Collector, fake_env, make_session
from tools.decisions import DecisionReason, PermissionDecision
from tools.interaction import PlanApprovalRequest, QuestionsRequest

QUESTION = {
    "questions": [
        {
            "question": "Which library?",
            "header": "Library",
            "options": [
                {"label": "dayjs", "description": "small"},
                {"label": "luxon", "description": "complete"},
            ],
            "multiSelect": False,
        }
    ]
}


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]


async def test_web_search_side_request_with_the_server_tool(fake_api, project, monkeypatch):
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block(
                        "WebSearch",
                        {"query": "python 3.13 release", "allowed_domains": ["python.org"]},
                        "s1",
                    )
                ]
            ),
            text_turn("Python 3.13 is out."),
        ]
    )
    session, _ = make_session(
        fake_api, project, opts=CliOptions(allowed_tools=["WebSearch"]), monkeypatch=monkeypatch
    )
    result = await session.run_turn("what is new")
    assert result.result_text == "Python 3.13 is out."
    bodies = fake_api.bodies()
    main = bodies[0]
    assert "WebSearch" in [t["name"] for t in main["tools"]]
    side = bodies[1]
    assert side["tools"] == [
        {
            "type": "web_search_20250305",
            "name": "web_search",
            "allowed_domains": ["python.org"],
            "max_uses": 8,
        }
    ]
    assert side["model"] == main["model"] and not side.get("stream")
    assert (
        side["messages"][0]["content"] == "Perform a web search for the query: python 3.13 release"
    )
    [res] = tool_results(bodies[2])
    text = res["content"]
    assert text.startswith('Web search results for query: "python 3.13 release"\n\nLinks: [')
    links = json.loads(text.split("Links: ", 1)[1].split("\n", 1)[0])
    # allowed_domains reached the server tool: only python.org and its subdomains came back.
    assert [link["url"].split("/")[2] for link in links] == ["docs.python.org", "python.org"]
    assert text.endswith(
        "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks."
    )
    assert not res.get("is_error")
    await session.close()


async def test_web_search_off_where_the_endpoint_lacks_it(fake_api, project, monkeypatch):
    fake_api.web_search_supported = False
    call = {"query": "anything at all"}
    fake_api.load(
        [
            turn_of([tool_use_block("WebSearch", call, "s1")]),
            turn_of([tool_use_block("WebSearch", call, "s2")]),
            text_turn("no search then"),
        ]
    )
    session, collector = make_session(
        fake_api, project, opts=CliOptions(allowed_tools=["WebSearch"]), monkeypatch=monkeypatch
    )
    result = await session.run_turn("search")
    assert result.result_text == "no search then"
    statuses = [r.status for r in fake_api.requests]
    assert statuses == [200, 400, 200, 200]  # the second search sent no request
    bodies = fake_api.bodies()
    for body in bodies[1:]:
        [res] = tool_results(body)
        assert res["is_error"] and "Web search is off for this session" in str(res["content"])
    notices = [n.text for n in collector.of(Notice) if "Web search is off" in n.text]
    assert len(notices) == 1
    await session.close()


async def test_web_search_asks_in_default_mode_and_headless_refuses(fake_api, project, monkeypatch):
    fake_api.load([turn_of([tool_use_block("WebSearch", {"query": "x y"}, "s1")]), text_turn("k")])
    session, _ = make_session(fake_api, project, monkeypatch=monkeypatch)
    result = await session.run_turn("search")
    assert [d["tool_name"] for d in result.permission_denials] == ["WebSearch"]
    assert len(fake_api.requests) == 2  # no side request was made
    await session.close()


async def test_ask_user_question_headless_is_refused_clearly(fake_api, project, monkeypatch):
    fake_api.load([turn_of([tool_use_block("AskUserQuestion", QUESTION, "q1")]), text_turn("ok")])
    session, _ = make_session(
        fake_api,
        project,
        opts=CliOptions(permission_mode="bypassPermissions"),
        monkeypatch=monkeypatch,
    )
    await session.run_turn("ask me")
    [res] = tool_results(fake_api.bodies()[1])
    assert res["is_error"] and "no one can answer your questions" in str(res["content"])
    await session.close()


async def test_ask_user_question_answered_through_the_prompt(fake_api, project, monkeypatch):
    fake_api.load([turn_of([tool_use_block("AskUserQuestion", QUESTION, "q1")]), text_turn("ok")])
    session, collector = make_session(fake_api, project, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.create_task(session.run_turn("ask me"))
    while not collector.prompts:
        await asyncio.sleep(0.01)
    prompt = collector.prompts[0]
    assert isinstance(prompt.interaction, QuestionsRequest)
    prompt.resolver.resolve(
        PermissionDecision.allow(
            DecisionReason("user", "answered"),
            {**prompt.input, "answers": {"Which library?": "luxon"}},
        )
    )
    await turn
    [res] = tool_results(fake_api.bodies()[1])
    assert res["content"] == (
        'Your questions have been answered: "Which library?"="luxon". '
        "You can now continue with these answers in mind."
    )
    await session.close()


def plan_session(fake_api, project, answer: PermissionDecision, mode: str = "plan"):  # type: ignore[no-untyped-def]
    """A session with the engine's own prompter (it applies `set_mode`), answered by `answer`."""
    collector = Collector()
    holder: dict[str, EnginePrompter] = {}

    class Answering:
        async def ask(self, prompt: PermissionPrompt) -> None:
            collector.prompts.append(prompt)  # type: ignore[arg-type]
            real = holder["p"]
            if prompt.interaction is not None:
                prompt.resolver.resolve(answer)
            else:
                prompt.resolver.resolve(PermissionDecision.deny("no", DecisionReason("user", "no")))
            real.remember(await prompt.resolver.wait())

    setup = build_session(
        CliOptions(permission_mode=mode),
        interactive=True,
        cwd=project,
        env=fake_env(fake_api),
        sink=collector,
        prompter=Answering(),
        trusted=True,
    )
    assert setup.session.parts.rules is not None
    holder["p"] = EnginePrompter(setup.session.parts.rules, setup.session)
    return setup.session, collector


async def test_exit_plan_mode_approval_switches_the_mode(fake_api, project):
    plan = "1. Write a.txt"
    fake_api.load(
        [
            turn_of([tool_use_block("ExitPlanMode", {"plan": plan}, "p1")]),
            turn_of(
                [
                    tool_use_block(
                        "Write", {"file_path": str(project / "a.txt"), "content": "hi\n"}, "w1"
                    )
                ]
            ),
            text_turn("done"),
        ]
    )
    approve = PermissionDecision(
        "allow", reason=DecisionReason("user", "ok"), set_mode="acceptEdits"
    )
    session, collector = plan_session(fake_api, project, approve)
    assert session.permission_mode == "plan"
    await session.run_turn("plan it")
    assert isinstance(collector.prompts[0].interaction, PlanApprovalRequest)
    assert collector.prompts[0].interaction.plan == plan
    assert session.permission_mode == "acceptEdits"
    bodies = fake_api.bodies()
    [res] = tool_results(bodies[1])
    assert res["content"].startswith("User has approved your plan. You can now start coding.")
    assert res["content"].endswith(f"## Approved Plan:\n{plan}")
    # acceptEdits: the Write inside the project ran without a question.
    assert (project / "a.txt").read_text() == "hi\n" and len(collector.prompts) == 1
    await session.close()


async def test_exit_plan_mode_keep_planning_stays_in_plan_mode(fake_api, project):
    fake_api.load(
        [turn_of([tool_use_block("ExitPlanMode", {"plan": "1. x"}, "p1")]), text_turn("ok")]
    )
    keep = PermissionDecision(
        "deny",
        message="The user doesn't want to proceed with this tool use. The tool use was rejected "
        "(eg. if it was a file edit, the new_string was NOT written to the file). To tell you how "
        "to proceed, the user said:\nsplit step 1",
        reason=DecisionReason("user", "keep planning"),
        feedback="split step 1",
    )
    session, _ = plan_session(fake_api, project, keep)
    await session.run_turn("plan it")
    assert session.permission_mode == "plan"
    [res] = tool_results(fake_api.bodies()[1])
    assert res["is_error"] and "split step 1" in str(res["content"])
    await session.close()


async def test_exit_plan_mode_headless_and_outside_plan_mode(fake_api, project, monkeypatch):
    fake_api.load(
        [
            turn_of([tool_use_block("ExitPlanMode", {"plan": "1. x"}, "p1")]),
            text_turn("ok"),
            turn_of([tool_use_block("ExitPlanMode", {"plan": "1. x"}, "p2")]),
            text_turn("ok"),
        ]
    )
    session, _ = make_session(
        fake_api, project, opts=CliOptions(permission_mode="plan"), monkeypatch=monkeypatch
    )
    await session.run_turn("plan")
    [res] = tool_results(fake_api.bodies()[1])
    assert res["is_error"] and "plan mode stays on" in str(res["content"])
    assert session.permission_mode == "plan"
    session.set_permission_mode("default")
    await session.run_turn("again")
    [res] = tool_results(fake_api.bodies()[3])
    assert res["is_error"] and "You are not in plan mode" in str(res["content"])
    await session.close()


async def test_notebook_edit_is_an_edit_for_permissions(fake_api, project, monkeypatch):
    nb = project / "n.ipynb"
    cell = {
        "cell_type": "code",
        "id": "a1",
        "metadata": {},
        "source": ["x=1"],
        "outputs": [],
        "execution_count": 1,
    }
    nb.write_text(
        json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    )
    edit = {"notebook_path": str(nb), "cell_id": "a1", "new_source": "y=2"}
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": str(nb)}, "r1")]),
            turn_of([tool_use_block("NotebookEdit", edit, "e1")]),
            text_turn("ok"),
        ]
    )
    session, _ = make_session(fake_api, project, monkeypatch=monkeypatch)
    result = await session.run_turn("edit")  # default mode, headless: the edit is refused
    assert [d["tool_name"] for d in result.permission_denials] == ["NotebookEdit"]
    await session.close()
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": str(nb)}, "r1")]),
            turn_of([tool_use_block("NotebookEdit", edit, "e1")]),
            text_turn("ok"),
        ]
    )
    session, _ = make_session(
        fake_api, project, opts=CliOptions(permission_mode="acceptEdits"), monkeypatch=monkeypatch
    )
    result = await session.run_turn("edit")
    assert not result.permission_denials
    assert json.loads(nb.read_text())["cells"][0]["source"] == ["y=2"]
    await session.close()
