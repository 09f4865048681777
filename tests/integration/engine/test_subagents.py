"""The Agent tool through the real engine against the HTTP fake of the API: each subagent is a
child conversation on the same client, pipeline, permissions and hooks."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.engine.api import SubagentMessage
from app.execution.texts import REJECT_MESSAGE
from app.model.scenario import text_turn, tool_use_block, turn_of
from app.transcript import project_transcripts_dir
from tests.support.engine import make_session
from tests.support.subagents import requests_of, route

MAIN = "start the work"


def agent_call(prompt: str, block_id: str, kind: str | None = None, **extra: Any) -> Any:
    tool_input: dict[str, Any] = {"description": "a task", "prompt": prompt, **extra}
    if kind:
        tool_input["subagent_type"] = kind
    return tool_use_block("Agent", tool_input, block_id)


def result_of(body: Any, tool_use_id: str) -> dict[str, Any]:
    for message in body["messages"]:
        if message["role"] != "user" or isinstance(message["content"], str):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_result" and block["tool_use_id"] == tool_use_id:
                return dict(block)
    raise AssertionError(f"no tool_result for {tool_use_id}")


def text_of(result: dict[str, Any]) -> str:
    content = result["content"]
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content)


def sidechains(project: Path) -> list[Path]:
    return sorted(project_transcripts_dir(project).glob("*/subagents/agent-*.jsonl"))


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "a.txt").write_text("alpha says hello\n")
    return project


async def test_foreground_subagent_runs_its_tools_and_returns_its_text(fake_api, repo, monkeypatch):
    route(
        fake_api,
        {
            MAIN: [
                turn_of([agent_call("SUB-A read a.txt", "toolu_agent_a")]),
                text_turn("relayed"),
            ],
            "SUB-A": [
                turn_of([tool_use_block("Read", {"file_path": str(repo / "a.txt")}, "toolu_r1")]),
                text_turn("a.txt says alpha says hello"),
            ],
        },
    )
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    ended = await session.run_turn(MAIN)
    assert not ended.is_error and ended.result_text == "relayed"

    sub = requests_of(fake_api, "SUB-A")
    assert len(sub) == 2
    names = [t["name"] for t in sub[0]["tools"]]
    assert "Agent" not in names and "Read" in names and "Bash" in names  # no nesting
    assert "subagent of lathe" in json.dumps(sub[0]["system"])
    assert "alpha says hello" in text_of(result_of(sub[1], "toolu_r1"))

    main = requests_of(fake_api, MAIN)
    handed = text_of(result_of(main[1], "toolu_agent_a"))
    assert "  a.txt says alpha says hello" in handed  # the report, indented in its frame
    assert "[Subagent hand-back]" in handed and "tool_uses: 1" in handed
    assert "agentId: a" in handed
    assert "Agent" in [t["name"] for t in main[0]["tools"]]

    # Live progress: the Agent call's row names the subagent's tool and counts.
    progress = [
        v.progress_text for v in events.calls("progressed") if v.tool_use_id == "toolu_agent_a"
    ]
    assert any(t.startswith("Read ") and "· 1 tool use ·" in t for t in progress)
    assert progress[-1].endswith(" tokens") and not progress[-1].endswith(" 0 tokens")
    # The session's own calls are only the Agent call; the child's come nested under it.
    finished = events.calls("finished")
    assert {v.tool_use_id for v in finished if v.parent_tool_use_id is None} == {"toolu_agent_a"}
    assert {v.tool_use_id for v in finished if v.parent_tool_use_id == "toolu_agent_a"} == {
        "toolu_r1"
    }
    nested = events.of(SubagentMessage)
    assert {m.parent_tool_use_id for m in nested} == {"toolu_agent_a"}
    assert [m.message["role"] for m in nested] == ["user", "assistant", "user", "assistant"]

    # The sidechain transcript beside the session's, every line marked with the agent.
    [path] = sidechains(repo)
    assert path.parent.parent.name == session.session_id
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert all(x["isSidechain"] is True and x["agentId"] == path.stem[6:] for x in lines)
    assert [x["message"]["role"] for x in lines] == ["user", "assistant", "user", "assistant"]
    meta = json.loads(path.with_name(path.stem + ".meta.json").read_text())
    assert meta["agentType"] == "general-purpose" and meta["toolUseId"] == "toolu_agent_a"
    # Subagents' usage counts into the session's.
    assert sum(m.requests for m in session.usage.by_model.values()) == 4


async def test_two_subagents_run_at_the_same_time(fake_api, repo, monkeypatch):
    slow = 0.05  # seconds between stream events: each subagent's answer takes about half a second
    route(
        fake_api,
        {
            MAIN: [
                turn_of([agent_call("SUB-A task", "toolu_a"), agent_call("SUB-B task", "toolu_b")]),
                text_turn("both back"),
            ],
            "SUB-A": [text_turn("report from A, " * 6, delay=slow)],
            "SUB-B": [text_turn("report from B, " * 6, delay=slow)],
        },
    )
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    ended = await session.run_turn(MAIN)
    assert ended.result_text == "both back"
    a = next(r for r in fake_api.requests if "SUB-A" in json.dumps(r.body.get("messages", [])))
    b = next(r for r in fake_api.requests if "SUB-B" in json.dumps(r.body.get("messages", [])))
    # Each started before the other finished streaming.
    assert a.received < b.finished and b.received < a.finished
    final = requests_of(fake_api, MAIN)[1]
    assert "report from A" in text_of(result_of(final, "toolu_a"))
    assert "report from B" in text_of(result_of(final, "toolu_b"))
    assert len(sidechains(repo)) == 2


async def test_custom_agent_gets_only_its_tools(fake_api, repo, monkeypatch):
    agents = repo / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "looker.md").write_text(
        "---\nname: looker\ndescription: Looks at files only.\ntools: Read, Grep\n"
        "model: haiku\n---\nYou only look. LOOKER-PROMPT\n"
    )
    route(
        fake_api,
        {
            MAIN: [turn_of([agent_call("SUB-L list", "toolu_l", "looker")]), text_turn("ok")],
            "SUB-L": [
                turn_of([tool_use_block("Bash", {"command": "touch made.txt"}, "toolu_bash")]),
                text_turn("could not run Bash"),
            ],
        },
    )
    session, _ = make_session(
        fake_api,
        repo,
        monkeypatch=monkeypatch,
        opts=CliOptions(permission_mode="bypassPermissions"),
    )
    await session.run_turn(MAIN)
    first, second = requests_of(fake_api, "SUB-L")
    assert sorted(t["name"] for t in first["tools"]) == ["Grep", "Read"]
    assert first["model"] == "claude-haiku-5-5"
    assert "LOOKER-PROMPT" in json.dumps(first["system"])
    refused = result_of(second, "toolu_bash")
    assert refused.get("is_error") and "No such tool available: Bash" in text_of(refused)
    assert not (repo / "made.txt").exists()
    # The session's description of the Agent tool lists the custom type with its tools.
    agent_tool = next(t for t in requests_of(fake_api, MAIN)[0]["tools"] if t["name"] == "Agent")
    assert "- looker: Looks at files only. (Tools: Read, Grep)" in agent_tool["description"]
    assert "- Explore:" in agent_tool["description"]


async def test_unknown_agent_type_is_an_error_naming_the_known_ones(fake_api, repo, monkeypatch):
    route(fake_api, {MAIN: [turn_of([agent_call("x", "toolu_x", "nobody")]), text_turn("ok")]})
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn(MAIN)
    result = result_of(requests_of(fake_api, MAIN)[1], "toolu_x")
    assert result.get("is_error")
    assert "Agent type 'nobody' not found. Available agents: general-purpose, Explore, Plan" in (
        text_of(result)
    )


async def test_interrupt_stops_every_subagent_and_every_call_gets_a_result(
    fake_api, repo, monkeypatch
):
    route(
        fake_api,
        {
            MAIN: [
                turn_of([agent_call("SUB-A wait", "toolu_a"), agent_call("SUB-B wait", "toolu_b")]),
                text_turn("after the interrupt"),
            ],
            "SUB-A": [turn_of([tool_use_block("Bash", {"command": "sleep 30"}, "toolu_sa")])],
            "SUB-B": [turn_of([tool_use_block("Bash", {"command": "sleep 31"}, "toolu_sb")])],
        },
    )
    session, events = make_session(
        fake_api, repo, monkeypatch=monkeypatch, opts=CliOptions(allowed_tools=["Bash(sleep *)"])
    )
    turn = asyncio.ensure_future(session.run_turn(MAIN))
    for _ in range(400):  # both subagents are inside their Bash calls
        busy = {
            v.tool_use_id for v in events.calls("progressed") if v.progress_text.startswith("Bash")
        }
        if busy == {"toolu_a", "toolu_b"}:
            break
        await asyncio.sleep(0.025)
    else:
        pytest.fail("the subagents never started their commands")
    await asyncio.sleep(0.2)
    loop = asyncio.get_running_loop()
    stopped_at = loop.time()
    assert session.interrupt()
    ended = await asyncio.wait_for(turn, 10)
    assert ended.subtype == "interrupted"
    assert loop.time() - stopped_at < 4  # neither sleep ran on
    views = {v.tool_use_id: v for v in events.calls("finished")}
    for tool_use_id in ("toolu_a", "toolu_b"):
        assert views[tool_use_id].status == "interrupted"
        # The screen says it in plain words; the model reads the rejection text.
        assert views[tool_use_id].result.summary == "Interrupted by you"
    sent = {
        b["tool_use_id"]: b["content"]
        for m in session.messages
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    }
    assert sent["toolu_a"] == sent["toolu_b"] == REJECT_MESSAGE
    # The subagents' own Bash calls were interrupted too, each with its one result.
    assert views["toolu_sa"].status == views["toolu_sb"].status == "interrupted"
    # Every tool_use of each subagent got exactly one tool_result in its sidechain.
    for path in sidechains(repo):
        lines = [json.loads(x)["message"] for x in path.read_text().splitlines()]
        uses = [b["id"] for m in lines for b in m["content"] if b.get("type") == "tool_use"]
        results = [
            b["tool_use_id"] for m in lines for b in m["content"] if b.get("type") == "tool_result"
        ]
        assert uses and sorted(uses) == sorted(results)
    # The conversation stays valid: the next prompt is accepted by the fake's API rules.
    route(fake_api, {MAIN: [text_turn("fine")]})
    again = await session.run_turn("go on")
    assert not again.is_error


async def test_subagent_hooks_get_claude_codes_fields(fake_api, repo, monkeypatch):
    log = repo / "hooks.log"
    hook = f"cat >> {log}; echo >> {log}"
    context = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "SubagentStart",
                "additionalContext": "START-CONTEXT",
            }
        }
    )
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "SubagentStart": [
                        {"hooks": [{"type": "command", "command": f"{hook}; echo '{context}'"}]}
                    ],
                    "SubagentStop": [{"hooks": [{"type": "command", "command": hook}]}],
                    "Stop": [{"hooks": [{"type": "command", "command": hook}]}],
                    "PreToolUse": [
                        {"matcher": "Read", "hooks": [{"type": "command", "command": hook}]}
                    ],
                }
            }
        )
    )
    route(
        fake_api,
        {
            MAIN: [turn_of([agent_call("SUB-H go", "toolu_h", "Explore")]), text_turn("done")],
            "SUB-H": [
                turn_of([tool_use_block("Read", {"file_path": str(repo / "a.txt")}, "toolu_hr")]),
                text_turn("explored it"),
            ],
        },
    )
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn(MAIN)
    entries = [json.loads(x) for x in log.read_text().splitlines() if x.strip()]
    by_event = {e["hook_event_name"]: e for e in entries}
    start, stop, pre = by_event["SubagentStart"], by_event["SubagentStop"], by_event["PreToolUse"]
    assert start["agent_type"] == "Explore" and start["agent_id"].startswith("a")
    assert start["session_id"] == session.session_id
    assert stop["agent_id"] == start["agent_id"] and stop["agent_type"] == "Explore"
    assert stop["stop_hook_active"] is False
    assert stop["last_assistant_message"] == "explored it"
    assert os.path.isfile(stop["agent_transcript_path"])  # noqa: ASYNC240
    assert stop["agent_transcript_path"].endswith(f"subagents/agent-{start['agent_id']}.jsonl")
    assert pre["agent_id"] == start["agent_id"] and pre["tool_name"] == "Read"
    # Stop fired once, for the session's own turn; the subagent's end is SubagentStop.
    assert [e["hook_event_name"] for e in entries].count("Stop") == 1
    assert "START-CONTEXT" in json.dumps(requests_of(fake_api, "SUB-H")[0]["messages"][0])


async def test_a_subagents_permission_question_reaches_the_prompter(fake_api, repo, monkeypatch):
    route(
        fake_api,
        {
            MAIN: [turn_of([agent_call("SUB-P make a file", "toolu_p")]), text_turn("done")],
            "SUB-P": [
                turn_of([tool_use_block("Bash", {"command": "touch made.txt"}, "toolu_touch")]),
                text_turn("made it"),
            ],
        },
    )
    session, events = make_session(fake_api, repo, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.ensure_future(session.run_turn(MAIN))
    for _ in range(400):
        if events.prompts:
            break
        await asyncio.sleep(0.025)
    [prompt] = events.prompts
    assert prompt.tool_name == "Bash" and prompt.agent == "general-purpose agent"
    assert prompt.title.startswith("(general-purpose agent) ")
    assert prompt.choose("allow_once")
    ended = await asyncio.wait_for(turn, 10)
    assert ended.result_text == "done"
    assert (repo / "made.txt").exists()


async def test_background_agent_returns_at_once_and_notifies_when_done(fake_api, repo, monkeypatch):
    route(
        fake_api,
        {
            MAIN: [
                turn_of([agent_call("SUB-BG look", "toolu_bg", run_in_background=True)]),
                text_turn("started it"),
                text_turn("got the notification"),
            ],
            "SUB-BG": [text_turn("background findings", delay=0.05)],
        },
    )
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    ended = await session.run_turn(MAIN)
    assert ended.result_text == "started it"
    launched = text_of(result_of(requests_of(fake_api, MAIN)[1], "toolu_bg"))
    assert launched.startswith("Async agent launched successfully.")
    agent_id = launched.split("agentId: ")[1].split(" ")[0]
    for _ in range(400):
        if session.pending_notifications:
            break
        await asyncio.sleep(0.025)
    assert not session.background_agents_running()
    await session.run_turn("anything new?")
    last = requests_of(fake_api, MAIN)[2]["messages"][-1]
    sent = json.dumps(last)
    assert f"<task-id>{agent_id}</task-id>" in sent and "<status>completed</status>" in sent
    assert "<result>background findings</result>" in sent
    assert "<tool-use-id>toolu_bg</tool-use-id>" in sent


async def test_a_stopped_background_agent_ends_cleanly(fake_api, repo, monkeypatch):
    route(
        fake_api,
        {
            MAIN: [
                turn_of([agent_call("SUB-ST wait", "toolu_st", run_in_background=True)]),
                text_turn("started"),
            ],
            "SUB-ST": [turn_of([tool_use_block("Bash", {"command": "sleep 30"}, "toolu_sl")])],
        },
    )
    session, events = make_session(
        fake_api, repo, monkeypatch=monkeypatch, opts=CliOptions(allowed_tools=["Bash(sleep *)"])
    )
    await session.run_turn(MAIN)
    [agent] = [t for t in session.context.background.all() if getattr(t, "kind", "") == "agent"]
    for _ in range(400):  # the agent's Bash call is running
        if any(m.message.get("role") == "assistant" for m in events.of(SubagentMessage)):
            break
        await asyncio.sleep(0.025)
    await asyncio.sleep(0.2)
    await asyncio.wait_for(agent.stop(), 10)
    assert agent.status == "killed"
    [text] = session.take_notifications()
    assert "<status>killed</status>" in text
    [path] = sidechains(repo)
    lines = [json.loads(x)["message"] for x in path.read_text().splitlines()]
    results = [b for m in lines for b in m["content"] if b.get("type") == "tool_result"]
    assert [r["tool_use_id"] for r in results] == ["toolu_sl"]
