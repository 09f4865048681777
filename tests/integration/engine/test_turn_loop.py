"""The query loop through the real SDK against the HTTP fake of the API, with real tools."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.engine.api import ToolCallUpdated
from app.engine.events import (
    AssistantMessage,
    Interrupted,
    Retrying,
    TextDelta,
    TurnEnded,
)
from app.execution.texts import INTERRUPTED, INTERRUPTED_FOR_TOOL_USE, REJECT_MESSAGE
from app.model.scenario import Block, Turn, text_turn, tool_use_block, turn_of
from tests.support.engine import make_session
from tools.decisions import PermissionDecision


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    for i in range(3):
        (project / f"f{i}.txt").write_text(f"file {i}\nline two\n")
    return project


def tool(name: str, tool_id: str, **inp: Any) -> Block:
    return tool_use_block(name, inp, tool_id)


def last_user_content(fake) -> list[dict[str, Any]]:
    return fake.bodies()[-1]["messages"][-1]["content"]


async def test_concurrent_reads_results_in_order(fake_api, repo, monkeypatch):
    fake_api.load(
        [
            turn_of(
                [
                    tool("Read", "r0", file_path="f0.txt"),
                    tool("Read", "r1", file_path="f1.txt"),
                    tool("Grep", "g", pattern="line"),
                    tool("Read", "r2", file_path="f2.txt"),
                ]
            ),
            text_turn("Read them all."),
        ]
    )
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("read")
    assert result.subtype == "success" and result.result_text == "Read them all."
    results = last_user_content(fake_api)
    assert [b["tool_use_id"] for b in results] == ["r0", "r1", "g", "r2"]
    assert results[0]["content"] == "1\tfile 0\n2\tline two"
    assert all(not b.get("is_error") for b in results)
    # All four are read-only and concurrency-safe: they overlapped.
    starts = {v.tool_use_id: v.started_at for v in events.calls("started")}
    ends = {v.tool_use_id: v for v in events.calls("finished")}
    assert len(starts) == 4 and len(ends) == 4


async def test_tool_starts_while_the_model_is_still_streaming(fake_api, repo, monkeypatch):
    long_text = Block("text", tuple(f"word{i} " for i in range(40)))
    fake_api.load(
        [
            Turn(
                blocks=(tool("Read", "r0", file_path="f0.txt"), long_text),
                stop_reason="tool_use",
                delay=0.01,
            ),
            text_turn("ok"),
        ]
    )
    session, _events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    stamps: list[tuple[str, float]] = []
    original = session._sink

    def sink(event):
        name = type(event).__name__
        if isinstance(event, ToolCallUpdated):
            name = f"{name}:{event.change}"
        stamps.append((name, time.perf_counter()))
        original(event)

    session.set_sink(sink)
    await session.run_turn("go")
    started = next(t for name, t in stamps if name == "ToolCallUpdated:started")
    last_delta = max(t for name, t in stamps if name == "TextDelta")
    assert started < last_delta, "the tool must start before the stream ends"


async def test_retry_after_429_and_529_is_shown(fake_api, repo, monkeypatch):
    from app.model.scenario import parse_scenario

    scenario = parse_scenario(
        {
            "turns": [
                {"error": 429, "retry_after": 0},
                {"error": 529},
                {"blocks": [{"type": "text", "text": "after retries"}]},
            ]
        }
    )
    fake_api.load(scenario)
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("hi")
    assert result.result_text == "after retries"
    assert [e.attempt for e in events.of(Retrying)] == [1, 2]


async def test_gives_up_with_a_clear_error(fake_api, repo, monkeypatch):
    from app.model.scenario import parse_scenario

    monkeypatch.setenv("LATHE_MAX_RETRIES", "2")
    fake_api.load(parse_scenario({"turns": [{"error": 500}] * 5}))
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("hi")
    assert result.is_error and result.subtype == "error_during_execution"
    assert "500" in result.result_text and "gave up after 3 attempts" in result.result_text


async def test_non_retryable_error_ends_at_once(fake_api, repo, monkeypatch):
    from app.model.scenario import parse_scenario

    fake_api.load(parse_scenario({"turns": [{"error": 400, "message": "bad thing"}]}))
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("hi")
    assert result.is_error and "bad thing" in result.result_text
    assert events.of(Retrying) == []


async def test_dropped_stream_after_a_tool_keeps_it_and_does_not_rerun_it(
    fake_api, repo, monkeypatch
):
    marker = repo / "ran.txt"
    broken = Turn(
        blocks=(
            tool("Bash", "b1", command=f"echo x >> {marker}"),
            Block("text", tuple("abcdefghij")),
        ),
        stop_reason="tool_use",
        drop_after=12,
    )
    fake_api.load(
        [broken, turn_of([tool("Read", "r9", file_path="f0.txt")]), text_turn("recovered")]
    )
    session, events = make_session(
        fake_api,
        repo,
        opts=CliOptions(permission_mode="bypassPermissions"),
        monkeypatch=monkeypatch,
    )
    result = await session.run_turn("go")
    assert result.result_text == "recovered"
    assert len(events.of(Retrying)) == 1
    # The Bash call ran exactly once, and its real result is what the next request carried, right
    # after the kept (partial) assistant message: the cut text block is not part of it.
    assert marker.read_text() == "x\n"
    second = fake_api.bodies()[1]["messages"]
    assert second[-2]["content"] == [
        {
            "type": "tool_use",
            "id": "b1",
            "name": "Bash",
            "input": {"command": f"echo x >> {marker}"},
        }
    ]
    assert second[-1]["content"][0]["tool_use_id"] == "b1"
    assert not second[-1]["content"][0].get("is_error")


async def test_invalid_tool_json_gets_the_exact_result(fake_api, repo, monkeypatch):
    bad = Block("tool_use", ('{"file_path": ', '"f0.txt"'), id="bad1", name="Read")
    fake_api.load([turn_of([bad]), text_turn("fine")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn("go")
    results = fake_api.bodies()[-1]["messages"][-1]["content"]
    assert results[0]["is_error"] is True
    assert results[0]["content"] == '{"INVALID_JSON": "{\\"file_path\\": \\"f0.txt\\""}'


@pytest.mark.parametrize("stop", ["max_tokens", "refusal"])
async def test_other_stop_reasons_end_cleanly(fake_api, repo, monkeypatch, stop):
    fake_api.load([Turn(blocks=(Block("text", ("partial answer",)),), stop_reason=stop)])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    assert (
        not result.is_error
        and result.stop_reason == stop
        and result.result_text == "partial answer"
    )


async def test_pause_turn_continues(fake_api, repo, monkeypatch):
    fake_api.load(
        [
            Turn(blocks=(Block("text", ("working",)),), stop_reason="pause_turn"),
            text_turn("finished"),
        ]
    )
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    assert result.result_text == "finished" and result.num_turns == 2


async def test_max_turns(fake_api, repo, monkeypatch):
    fake_api.load([turn_of([tool("Read", f"r{i}", file_path="f0.txt")]) for i in range(5)])
    session, _ = make_session(fake_api, repo, opts=CliOptions(max_turns=2), monkeypatch=monkeypatch)
    result = await session.run_turn("loop")
    assert result.subtype == "error_max_turns" and result.is_error and result.num_turns == 2
    # The conversation is still valid: every tool_use has its result.
    assert session.messages[-1]["content"][0]["tool_use_id"] == "r1"


async def test_interrupt_during_text_then_next_request_is_valid(fake_api, repo, monkeypatch):
    slow = Turn(
        blocks=(Block("text", tuple(f"w{i} " for i in range(200))),),
        stop_reason="end_turn",
        delay=0.01,
    )
    fake_api.load([slow, text_turn("second answer")])
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    task = asyncio.ensure_future(session.run_turn("talk"))
    while not events.of(TextDelta):
        await asyncio.sleep(0.005)
    session.interrupt()
    result = await asyncio.wait_for(task, 10)
    assert result.subtype == "interrupted"
    assert session.messages[-1]["content"][-1]["text"] == INTERRUPTED
    assert session.messages[-2]["role"] == "assistant"  # what was said so far is kept
    assert events.of(Interrupted)[0].during_tools is False
    result = await session.run_turn("again")
    assert result.result_text == "second answer"  # the fake accepted the repaired conversation


async def test_interrupt_during_long_bash_kills_it(fake_api, repo, monkeypatch):
    pidfile = repo / "pid"
    fake_api.load(
        [
            turn_of([tool("Bash", "long", command=f"echo $$ > {pidfile}; sleep 30")]),
            text_turn("next"),
        ]
    )
    session, _events = make_session(
        fake_api,
        repo,
        opts=CliOptions(permission_mode="bypassPermissions"),
        monkeypatch=monkeypatch,
    )
    task = asyncio.ensure_future(session.run_turn("run it"))
    for _ in range(500):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        await asyncio.sleep(0.01)
    session.interrupt()
    result = await asyncio.wait_for(task, 15)
    assert result.subtype == "interrupted"
    content = session.messages[-1]["content"]
    assert content[0] == {
        "type": "tool_result",
        "tool_use_id": "long",
        "content": REJECT_MESSAGE,
        "is_error": True,
    }
    assert content[-1] == {"type": "text", "text": INTERRUPTED_FOR_TOOL_USE}
    pid = int(pidfile.read_text())
    await asyncio.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert (await session.run_turn("ok")).result_text == "next"


async def test_interrupt_during_permission_wait(fake_api, repo, monkeypatch):
    fake_api.load(
        [turn_of([tool("Write", "w1", file_path="new.txt", content="x")]), text_turn("after")]
    )
    session, events = make_session(fake_api, repo, interactive=True, monkeypatch=monkeypatch)
    task = asyncio.ensure_future(session.run_turn("write"))
    while not events.prompts:
        await asyncio.sleep(0.005)
    session.interrupt()
    result = await asyncio.wait_for(task, 10)
    assert result.subtype == "interrupted"
    assert not (repo / "new.txt").exists()
    assert events.prompts[0].resolver.resolve(PermissionDecision.allow()) is False
    assert session.messages[-1]["content"][0]["content"] == REJECT_MESSAGE
    assert (await session.run_turn("go on")).result_text == "after"


async def test_permission_approved_in_dialog_runs_the_tool(fake_api, repo, monkeypatch):
    fake_api.load(
        [turn_of([tool("Write", "w1", file_path="new.txt", content="hello")]), text_turn("written")]
    )
    session, events = make_session(fake_api, repo, interactive=True, monkeypatch=monkeypatch)
    task = asyncio.ensure_future(session.run_turn("write"))
    while not events.prompts:
        await asyncio.sleep(0.005)
    assert events.prompts[0].resolver.resolve(PermissionDecision.allow())
    result = await asyncio.wait_for(task, 10)
    assert result.result_text == "written" and (repo / "new.txt").read_text() == "hello"


async def test_headless_denies_and_records(fake_api, repo, monkeypatch):
    fake_api.load([turn_of([tool("Bash", "b", command="touch x")]), text_turn("denied")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("touch")
    assert result.permission_denials == (
        {"tool_name": "Bash", "tool_use_id": "b", "tool_input": {"command": "touch x"}},
    ) or (result.permission_denials[0]["tool_use_id"] == "b")
    content = session.messages[-2]["content"][0]["content"]
    assert content.startswith("Permission to use Bash was denied: ")
    assert content.endswith(". lathe -p cannot ask; allow it with --allowedTools or settings.")
    assert not (repo / "x").exists()


async def test_cache_breakpoints_and_system_prompt(fake_api, repo, monkeypatch):
    (repo / "CLAUDE.md").write_text("Always answer in haiku.")
    fake_api.load([text_turn("ok")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn("hi")
    body = fake_api.bodies()[0]
    assert "Always answer in haiku." in str(body["system"])
    tools = body["tools"]
    marked = [i for i, t in enumerate(tools) if "cache_control" in t]
    assert marked == [len(tools) - 1]  # no MCP tools: the last built-in is the last tool
    assert "cache_control" in body["messages"][-1]["content"][-1]
    assert [t["name"] for t in tools] == sorted(t["name"] for t in tools)


async def test_usage_and_cost_accumulate(fake_api, repo, monkeypatch):
    fake_api.load(
        [
            Turn(
                blocks=(Block("text", ("hi",)),),
                stop_reason="end_turn",
                usage={"input_tokens": 1000, "output_tokens": 100, "cache_read_input_tokens": 5000},
            )
        ]
    )
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn("hi")
    totals = session.usage.totals()
    assert totals["input_tokens"] == 1000 and totals["cache_read_input_tokens"] == 5000
    assert session.usage.total_cost_usd > 0


async def test_assistant_messages_are_emitted(fake_api, repo, monkeypatch):
    fake_api.load([text_turn("hello there")])
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("hi")
    assert isinstance(events.events[-1], TurnEnded) and result.result_text == "hello there"
    assert events.of(AssistantMessage)[0].message["content"][0]["text"] == "hello there"


async def test_prompt_sent_while_tools_run_goes_with_the_results(fake_api, repo, monkeypatch):
    from app.engine.events import QueuedPromptsDelivered

    fake_api.load(
        [turn_of([tool("Bash", "b1", command="sleep 0.4; echo finished")]), text_turn("saw it")]
    )
    session, events = make_session(
        fake_api,
        repo,
        opts=CliOptions(permission_mode="bypassPermissions"),
        monkeypatch=monkeypatch,
    )
    task = asyncio.ensure_future(session.run_turn("run"))
    while not events.calls("started"):
        await asyncio.sleep(0.005)
    assert session.send_while_running("and then list the files")
    result = await asyncio.wait_for(task, 10)
    assert result.result_text == "saw it"
    last = fake_api.bodies()[-1]["messages"][-1]["content"]
    # Bash declares "block": it finished; the prompt follows its result in the same message.
    assert last[0]["tool_use_id"] == "b1" and "finished" in last[0]["content"]
    assert any(b.get("text") == "and then list the files" for b in last[1:])
    assert events.of(QueuedPromptsDelivered)[0].prompts == ("and then list the files",)
    assert not session.send_while_running("idle now")  # no turn runs
