"""Bug hunt: conversation validity after interruptions, failures and odd transcripts.

Each test drives the real SDK against the HTTP fake of the API, which answers 400 to an invalid
conversation, so "the next request is accepted" is checked by the fake itself.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.engine.events import TextDelta
from app.model.scenario import Block, Turn, text_turn, tool_use_block, turn_of
from app.transcript import load_transcript
from tests.support.engine import make_session


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "f0.txt").write_text("file 0\n")
    return project


def write_settings(repo: Path, hooks: dict[str, Any]) -> None:
    (repo / ".claude").mkdir(exist_ok=True)
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def hook(cmd: str) -> list[dict[str, Any]]:
    return [{"hooks": [{"type": "command", "command": cmd, "timeout": 30}]}]


def rejected(fake) -> list[int]:
    return [r.status for r in fake.requests if r.status == 400]


async def _two_turn_transcript(fake_api, repo, monkeypatch) -> Path:
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": "f0.txt"}, "r1")]),
            text_turn("read it"),
        ]
    )
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    assert (await session.run_turn("read f0")).result_text == "read it"
    await session.close()
    assert session.parts.transcript is not None
    return session.parts.transcript.path


def _garble(path: Path, predicate: Any) -> None:
    lines = path.read_text().splitlines()
    out = []
    for line in lines:
        record = json.loads(line)
        if record.get("type") == "message" and predicate(record["message"]):
            out.append(line[: len(line) // 2])  # cut in the middle: not JSON any more
        else:
            out.append(line)
    path.write_text("\n".join(out) + "\n")


async def test_garbled_assistant_tool_use_line_then_continue(fake_api, repo, monkeypatch):
    path = await _two_turn_transcript(fake_api, repo, monkeypatch)
    _garble(
        path,
        lambda m: (
            m["role"] == "assistant" and any(b.get("type") == "tool_use" for b in m["content"])
        ),
    )
    fake_api.load([text_turn("resumed fine")])
    session, _ = make_session(
        fake_api, repo, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    result = await session.run_turn("go on")
    assert rejected(fake_api) == []
    assert result.result_text == "resumed fine" and not result.is_error


async def test_garbled_first_prompt_line_then_continue(fake_api, repo, monkeypatch):
    path = await _two_turn_transcript(fake_api, repo, monkeypatch)
    _garble(path, lambda m: m["role"] == "user" and m["content"][0].get("type") == "text")
    fake_api.load([text_turn("resumed fine")])
    session, _ = make_session(
        fake_api, repo, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    result = await session.run_turn("go on")
    assert rejected(fake_api) == []
    assert result.result_text == "resumed fine" and not result.is_error


async def test_transcript_with_non_object_blocks_does_not_crash(fake_api, repo, monkeypatch):
    path = await _two_turn_transcript(fake_api, repo, monkeypatch)
    with path.open("a") as fh:
        record = {
            "type": "message",
            "session_id": "x",
            "message": {"role": "user", "content": ["hi", 3]},
        }
        fh.write(json.dumps(record) + "\n")
    fake_api.load([text_turn("resumed fine")])
    session, _ = make_session(
        fake_api, repo, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    result = await session.run_turn("go on")
    assert rejected(fake_api) == []
    assert result.result_text == "resumed fine"


async def test_clear_then_continue_resumes_only_after_clear(fake_api, repo, monkeypatch):
    fake_api.load([text_turn("first answer"), text_turn("second answer")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn("the secret word is PELICAN")
    assert session.clear()
    await session.run_turn("fresh start")
    # After /clear the model must not see the old conversation...
    assert "PELICAN" not in json.dumps(fake_api.bodies()[-1]["messages"])
    await session.close()
    # ...and neither may --continue bring it back.
    fake_api.load([text_turn("continued")])
    resumed, _ = make_session(
        fake_api, repo, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    await resumed.run_turn("and now?")
    sent = json.dumps(fake_api.bodies()[-1]["messages"])
    assert "fresh start" in sent and "PELICAN" not in sent


async def test_usage_of_an_interrupted_response_is_counted(fake_api, repo, monkeypatch):
    slow = Turn(
        blocks=(Block("text", tuple(f"w{i} " for i in range(300))),),
        usage={"input_tokens": 1234, "output_tokens": 10},
        delay=0.01,
    )
    fake_api.load([slow])
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    task = asyncio.ensure_future(session.run_turn("talk"))
    while not events.of(TextDelta):
        await asyncio.sleep(0.005)
    session.interrupt()
    result = await asyncio.wait_for(task, 10)
    assert result.subtype == "interrupted"
    # The request was billed (message_start carried its input tokens): /cost must show it.
    assert session.usage.totals()["input_tokens"] == 1234


async def test_interrupt_during_session_start_hook_is_not_lost(fake_api, repo, monkeypatch):
    marker = repo / "hook-started"
    write_settings(repo, {"SessionStart": hook(f"touch {marker}; sleep 1")})
    fake_api.load([text_turn("should not be asked")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    task = asyncio.ensure_future(session.run_turn("hello"))
    while not marker.exists():
        await asyncio.sleep(0.01)
    assert session.interrupt(), "Ctrl+C while the SessionStart hook runs must be taken"
    result = await asyncio.wait_for(task, 10)
    assert result.subtype == "interrupted"
    assert fake_api.bodies() == []


async def test_interrupt_during_user_prompt_submit_hook(fake_api, repo, monkeypatch):
    marker = repo / "hook-started"
    write_settings(repo, {"UserPromptSubmit": hook(f"touch {marker}; sleep 1")})
    fake_api.load([text_turn("should not be asked"), text_turn("second")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    task = asyncio.ensure_future(session.run_turn("hello"))
    while not marker.exists():
        await asyncio.sleep(0.01)
    assert session.interrupt()
    result = await asyncio.wait_for(task, 10)
    assert result.subtype == "interrupted"
    assert fake_api.bodies() == []
    marker.unlink()
    assert (await session.run_turn("again")).result_text == "should not be asked"
    assert rejected(fake_api) == []


async def test_max_tokens_inside_a_tool_use_block(fake_api, repo, monkeypatch):
    cut = Block("tool_use", ('{"file_path": "f0', ".tx"), id="cut1", name="Read")
    fake_api.load([Turn(blocks=(cut,), stop_reason="max_tokens"), text_turn("after cut")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    assert rejected(fake_api) == []
    assert result.result_text == "after cut"
    results = fake_api.bodies()[-1]["messages"][-1]["content"]
    assert results[0]["tool_use_id"] == "cut1" and results[0]["is_error"] is True


async def test_pause_turn_with_no_content_then_continue(fake_api, repo, monkeypatch):
    fake_api.load([Turn(blocks=(), stop_reason="pause_turn"), text_turn("done")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    assert rejected(fake_api) == [] and result.result_text == "done"


async def test_error_event_after_a_tool_completed_then_retry(fake_api, repo, monkeypatch):
    marker = repo / "ran.txt"
    broken = Turn(
        blocks=(
            tool_use_block("Bash", {"command": f"echo x >> {marker}"}, "b1"),
            Block("text", tuple("abcdefghij")),
        ),
        stop_reason="tool_use",
        error_event_after=10,
        delay=0.01,
    )
    fake_api.load([broken, text_turn("recovered")])
    session, _ = make_session(
        fake_api,
        repo,
        opts=CliOptions(permission_mode="bypassPermissions"),
        monkeypatch=monkeypatch,
    )
    result = await session.run_turn("go")
    assert rejected(fake_api) == []
    assert result.result_text == "recovered"
    await session.run_turn("more")
    assert rejected(fake_api) == []


async def test_send_while_running_then_interrupt_keeps_conversation_valid(
    fake_api, repo, monkeypatch
):
    fake_api.load(
        [turn_of([tool_use_block("Bash", {"command": "sleep 5"}, "b1")]), text_turn("next")]
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
    assert session.send_while_running("also this")
    session.interrupt()
    result = await asyncio.wait_for(task, 15)
    assert result.subtype == "interrupted"
    leftover = session.take_queued_prompts()
    assert leftover == ["also this"]  # the front end starts the next turn with it
    assert (await session.run_turn(leftover[0])).result_text == "next"
    assert rejected(fake_api) == []


async def test_resume_transcript_ending_with_tool_use(fake_api, repo, monkeypatch):
    path = await _two_turn_transcript(fake_api, repo, monkeypatch)
    lines = path.read_text().splitlines()
    # Keep up to the assistant message holding the tool_use (as if lathe died while it ran).
    keep = []
    for line in lines:
        keep.append(line)
        record = json.loads(line)
        if record.get("type") == "assistant":
            break
    path.write_text("\n".join(keep) + "\n")
    assert load_transcript(path).repaired == 1
    fake_api.load([text_turn("resumed")])
    session, _ = make_session(
        fake_api, repo, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    assert (await session.run_turn("go on")).result_text == "resumed"
    assert rejected(fake_api) == []


async def test_interrupt_during_retry_backoff(fake_api, repo, monkeypatch):
    from app.engine.events import Retrying
    from app.model.scenario import parse_scenario

    fake_api.load(parse_scenario({"turns": [{"error": 429, "retry_after": 30}]}).turns)
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    task = asyncio.ensure_future(session.run_turn("hi"))
    while not events.of(Retrying):
        await asyncio.sleep(0.005)
    session.interrupt()
    result = await asyncio.wait_for(task, 5)
    assert result.subtype == "interrupted"
    fake_api.load([text_turn("after backoff")])
    assert (await session.run_turn("again")).result_text == "after backoff"
    assert rejected(fake_api) == []


async def test_interrupt_during_stop_hook_that_asks_to_continue(fake_api, repo, monkeypatch):
    marker = repo / "stop-started"
    reply = json.dumps({"decision": "block", "reason": "keep going"})
    write_settings(repo, {"Stop": hook(f"touch {marker}; sleep 1; echo '{reply}'")})
    fake_api.load([text_turn("first"), text_turn("never"), text_turn("next turn")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    task = asyncio.ensure_future(session.run_turn("go"))
    while not marker.exists():
        await asyncio.sleep(0.01)
    session.interrupt()
    result = await asyncio.wait_for(task, 10)
    assert result.subtype == "interrupted" and len(fake_api.bodies()) == 1
    write_settings(repo, {})
    assert rejected(fake_api) == []


async def test_no_queued_tool_starts_after_interrupt(fake_api, repo, monkeypatch):
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Bash", {"command": "sleep 5"}, "b1"),
                    tool_use_block("Write", {"file_path": "late.txt", "content": "x"}, "w1"),
                    tool_use_block("Read", {"file_path": "f0.txt"}, "r1"),
                ]
            ),
            text_turn("next"),
        ]
    )
    session, events = make_session(
        fake_api,
        repo,
        opts=CliOptions(permission_mode="bypassPermissions"),
        monkeypatch=monkeypatch,
    )
    task = asyncio.ensure_future(session.run_turn("go"))
    while not events.calls("started"):
        await asyncio.sleep(0.005)
    session.interrupt()
    result = await asyncio.wait_for(task, 15)
    assert result.subtype == "interrupted"
    assert [v.tool_use_id for v in events.calls("started")] == ["b1"]
    assert not (repo / "late.txt").exists()
    # The interrupt may land before every block streamed: whatever tool_use blocks were kept,
    # each has exactly one result, in order.
    asked = [b["id"] for b in session.messages[-2]["content"] if b["type"] == "tool_use"]
    content = session.messages[-1]["content"]
    assert asked[0] == "b1"
    assert [b["tool_use_id"] for b in content if b["type"] == "tool_result"] == asked
    assert (await session.run_turn("ok")).result_text == "next"
    assert rejected(fake_api) == []
