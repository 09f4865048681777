"""Streams that break, stall or send garbage, through the real engine, the real SDK and the HTTP fake.

The central property: a side effect runs once and is always recorded. A turn with five tools (three
concurrency-safe reads, two Bash calls appending to a real file) is cut at EVERY event index of its
stream; each time, every tool ran exactly once (counted in the file and in "started" tool-call views), its
real result reached the model (in the fake's recorded requests), every request was valid, and the
transcript on disk pairs every tool_use with its result.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.engine.events import ErrorOccurred, Notice, Retrying
from app.model import sse
from app.model.scenario import Block, Turn, text_turn, tool_use_block, turn_of
from app.transcript import load_transcript
from tests.fakeapi.server import FakeAPI
from tests.support.engine import make_session

BYPASS = CliOptions(permission_mode="bypassPermissions")


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "f0.txt").write_text("file 0\nneedle\n")
    (project / "f1.txt").write_text("file 1\n")
    return project


def tools_turn(log: Path) -> Turn:
    """Text, two concurrent safe reads, a slow Bash (its write lands after a break at most event
    indices), a read, a fast Bash, and trailing text."""
    return Turn(
        blocks=(
            Block("text", ("Looking ", "around.")),
            tool_use_block("Read", {"file_path": "f0.txt"}, "t_read0"),
            tool_use_block("Grep", {"pattern": "needle"}, "t_grep"),
            tool_use_block("Bash", {"command": f"sleep 0.1; echo A >> {log}"}, "t_bashA"),
            tool_use_block("Read", {"file_path": "f1.txt"}, "t_read1"),
            tool_use_block("Bash", {"command": f"echo B >> {log}"}, "t_bashB"),
            Block("text", ("Both ", "writes ", "done.")),
        ),
        stop_reason="tool_use",
    )


def block_stops(turn: Turn) -> list[int]:
    """The stream event index of each block's content_block_stop."""
    return [
        n
        for n, (name, _data) in enumerate(sse.turn_events(turn, model="m"))
        if name == "content_block_stop"
    ]


def event_count(turn: Turn) -> int:
    return sum(1 for _ in sse.turn_events(turn, model="m"))


def rejected(fake: FakeAPI) -> list[Any]:
    return [(r.status, r.body) for r in fake.requests if r.status != 200]


def results_sent(fake: FakeAPI) -> dict[str, list[dict[str, Any]]]:
    """Every tool_result in the last accepted request, by tool_use_id (the full conversation)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for message in fake.bodies()[-1]["messages"]:
        content = message["content"]
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result":
                out.setdefault(block["tool_use_id"], []).append(block)
    return out


def transcript_pairs(session: Any) -> tuple[list[str], list[str], int]:
    loaded = load_transcript(session.parts.transcript.path)
    uses = [
        b["id"]
        for m in loaded.messages
        if m["role"] == "assistant"
        for b in m["content"]
        if b.get("type") == "tool_use"
    ]
    results = [
        b["tool_use_id"]
        for m in loaded.messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    return uses, results, loaded.repaired


def assert_each_ran_once_and_was_sent(fake, session, events, log: Path, ids: list[str]) -> None:
    assert log.read_text() == "A\nB\n"
    started = [v.tool_use_id for v in events.calls("started")]
    assert sorted(started) == sorted(ids), started
    sent = results_sent(fake)
    assert sorted(sent) == sorted(ids)
    for tool_id, blocks in sent.items():
        assert len(blocks) == 1 and not blocks[0].get("is_error"), (tool_id, blocks)
    assert "f0.txt" in str(sent["t_grep"][0]["content"])
    assert "file 0" in str(sent["t_read0"][0]["content"])
    uses, results, repaired = transcript_pairs(session)
    assert sorted(uses) == sorted(ids) and sorted(results) == sorted(ids) and repaired == 0


TURN_EVENTS = event_count(tools_turn(Path("x")))


# Every index on a fast stream (tools still running at the break), and a few on a paced one, where
# the tools before the break have finished (and had their results released) when it comes.
MATRIX = [(n, 0.0) for n in range(TURN_EVENTS)] + [(26, 0.05), (31, 0.05), (36, 0.05)]


@pytest.mark.parametrize(("drop_at", "delay"), MATRIX)
async def test_drop_at_every_event_index_runs_each_tool_once(
    fake_api, repo, monkeypatch, drop_at, delay
):
    log = repo / "side.log"
    full = tools_turn(log)
    complete = [b for b, n in zip(full.blocks, block_stops(full), strict=True) if n < drop_at]
    done_before = [b.id for b in complete if b.type == "tool_use"]
    broken = Turn(blocks=full.blocks, stop_reason="tool_use", drop_after=drop_at, delay=delay)
    # The model, shown the kept response and its results, asks for the tools it had not reached
    # (all of them when nothing was kept and the whole response is asked again).
    rest = [b for b in full.blocks if b.type == "tool_use" and b.id not in done_before]
    follow = [turn_of(rest)] if rest else []
    fake_api.load([broken, *follow, text_turn("all done")])
    session, events = make_session(fake_api, repo, opts=BYPASS, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    assert rejected(fake_api) == []
    assert result.subtype == "success" and result.result_text == "all done", result
    assert len(events.of(Retrying)) == 1
    ids = [b.id for b in full.blocks if b.type == "tool_use"]
    assert_each_ran_once_and_was_sent(fake_api, session, events, log, ids)
    second = fake_api.bodies()[1]["messages"]
    if done_before:
        # The continuation carries the kept blocks (the complete ones, nothing of a cut one) and
        # their real results.
        kept = second[-2]["content"]
        assert [b.get("id") or b["text"] for b in kept] == [b.id or b.text for b in complete]
        assert [b["tool_use_id"] for b in second[-1]["content"]] == done_before
    else:
        assert second == fake_api.bodies()[0]["messages"]  # asked again, exactly as before
    await session.close()


async def test_exhausted_retries_still_record_every_result(fake_api, repo, monkeypatch):
    """Every response breaks right after its tool: three attempts, three tools, each ran once,
    each result in the transcript; the turn ends with the error; the next turn is valid."""
    monkeypatch.setenv("LATHE_MAX_RETRIES", "2")
    log = repo / "side.log"
    turns = [
        Turn(
            blocks=(tool_use_block("Bash", {"command": f"echo {i} >> {log}"}, f"b{i}"),),
            stop_reason="tool_use",
            drop_after=7,  # after the block's content_block_stop, before message_delta
        )
        for i in range(3)
    ]
    fake_api.load([*turns, text_turn("next turn")])
    session, events = make_session(fake_api, repo, opts=BYPASS, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    assert result.is_error and "gave up after 3 attempts" in result.result_text
    assert [e.attempt for e in events.of(Retrying)] == [1, 2]
    assert len(events.of(ErrorOccurred)) == 1
    assert log.read_text() == "0\n1\n2\n"
    uses, results, repaired = transcript_pairs(session)
    assert uses == results == ["b0", "b1", "b2"] and repaired == 0
    assert (await session.run_turn("again")).result_text == "next turn"
    assert rejected(fake_api) == []
    assert sorted(results_sent(fake_api)) == ["b0", "b1", "b2"]
    await session.close()


async def test_no_retries_at_all_still_records_the_result(fake_api, repo, monkeypatch):
    monkeypatch.setenv("LATHE_MAX_RETRIES", "0")
    log = repo / "side.log"
    broken = Turn(
        blocks=(
            tool_use_block("Bash", {"command": f"echo once >> {log}"}, "b1"),
            Block("text", tuple("abcdef")),
        ),
        stop_reason="tool_use",
        drop_after=10,
    )
    fake_api.load([broken, text_turn("resumed")])
    session, events = make_session(fake_api, repo, opts=BYPASS, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    assert result.is_error and "gave up after 1 attempts" in result.result_text
    assert events.of(Retrying) == []
    assert any(
        "Kept the response up to its last complete block" in n.text for n in events.of(Notice)
    )
    assert log.read_text() == "once\n"
    assert transcript_pairs(session)[:2] == (["b1"], ["b1"])
    assert (await session.run_turn("go on")).result_text == "resumed"
    assert rejected(fake_api) == [] and list(results_sent(fake_api)) == ["b1"]
    await session.close()


def _retry_reasons(events) -> list[str]:
    return [e.reason for e in events.of(Retrying)]


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ({"never_answer": True}, "sent no response"),
        ({"stall_after": 0}, "stalled"),  # headers, then nothing
        ({"stall_after": 5}, "stalled"),  # mid-text
        ({"malformed_after": 0}, "malformed"),
        ({"malformed_after": 4}, "malformed"),
    ],
)
async def test_stalls_and_malformed_data_are_retried_visibly(
    fake_api, repo, monkeypatch, fault, words
):
    from app.model.scenario import parse_turn

    monkeypatch.setenv("LATHE_STREAM_IDLE_TIMEOUT_MS", "300")
    text = {"type": "text", "chunks": ["one ", "two ", "three ", "four"]}
    faulty = parse_turn(
        fault if "never_answer" in fault else {"blocks": [text], **fault}, where="t"
    )
    fake_api.load([faulty, text_turn("answered")])
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    started = time.monotonic()
    result = await session.run_turn("hi")
    elapsed = time.monotonic() - started
    assert result.subtype == "success" and result.result_text == "answered", result
    reasons = _retry_reasons(events)
    assert len(reasons) == 1 and words in reasons[0], reasons
    assert rejected(fake_api) == [] and len(fake_api.bodies()) == 2
    assert elapsed < 30  # not the SDK's 600 s
    await session.close()


async def test_stall_after_a_tool_keeps_it(fake_api, repo, monkeypatch):
    monkeypatch.setenv("LATHE_STREAM_IDLE_TIMEOUT_MS", "300")
    log = repo / "side.log"
    stalled = Turn(
        blocks=(
            tool_use_block("Bash", {"command": f"echo S >> {log}"}, "b1"),
            Block("text", tuple("abcdef")),
        ),
        stop_reason="tool_use",
        stall_after=9,
    )
    fake_api.load([stalled, text_turn("after the stall")])
    session, events = make_session(fake_api, repo, opts=BYPASS, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    assert result.result_text == "after the stall"
    assert log.read_text() == "S\n"
    assert "stalled" in _retry_reasons(events)[0]
    assert list(results_sent(fake_api)) == ["b1"] and rejected(fake_api) == []
    await session.close()


async def test_malformed_data_after_a_tool_keeps_it(fake_api, repo, monkeypatch):
    log = repo / "side.log"
    garbled = Turn(
        blocks=(
            tool_use_block("Bash", {"command": f"echo M >> {log}"}, "b1"),
            Block("text", tuple("abcdef")),
        ),
        stop_reason="tool_use",
        malformed_after=9,
    )
    fake_api.load([garbled, text_turn("after garbage")])
    session, events = make_session(fake_api, repo, opts=BYPASS, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    assert result.result_text == "after garbage"
    assert log.read_text() == "M\n"
    assert "malformed" in _retry_reasons(events)[0]
    assert list(results_sent(fake_api)) == ["b1"] and rejected(fake_api) == []
    await session.close()


async def test_idle_timeout_detection_latency(fake_api, repo, monkeypatch):
    """The stall is noticed about LATHE_STREAM_IDLE_TIMEOUT_MS after the last byte, not later."""
    monkeypatch.setenv("LATHE_STREAM_IDLE_TIMEOUT_MS", "400")
    text = Block("text", ("one ", "two ", "three"))
    fake_api.load([Turn(blocks=(text,), stall_after=4), text_turn("ok")])
    session, _events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    stamps: dict[str, float] = {}
    original = session._sink

    def sink(event: Any) -> None:
        name = type(event).__name__
        if name in ("TextDelta", "Retrying") and "Retrying" not in stamps:
            stamps[name] = time.monotonic()  # the last delta before the stall, and the retry
        original(event)

    session.set_sink(sink)
    await session.run_turn("hi")
    latency = stamps["Retrying"] - stamps["TextDelta"]
    assert 0.35 <= latency < 5, latency
    await session.close()


async def test_offline_model_script_stall_and_break_after_a_tool(fake_api, repo, monkeypatch):
    """The same faults through `--model-script` (the offline model): no network, same behaviour."""
    import json

    monkeypatch.setenv("LATHE_STREAM_IDLE_TIMEOUT_MS", "300")
    log = repo / "side.log"
    script = repo.parent / "faults.json"
    bash = {
        "type": "tool_use",
        "id": "b1",
        "name": "Bash",
        "input": {"command": f"echo o >> {log}"},
    }
    script.write_text(
        json.dumps(
            [
                {"blocks": [{"type": "text", "text": "hm"}], "stall_after": 2},
                {"blocks": [bash, {"type": "text", "chunks": ["a", "b", "c"]}], "drop_after": 9},
                {"blocks": [{"type": "text", "text": "x"}], "malformed_after": 3},
                {"blocks": [{"type": "text", "text": "offline done"}]},
            ]
        )
    )
    opts = CliOptions(permission_mode="bypassPermissions", model_script=str(script))
    session, events = make_session(fake_api, repo, opts=opts, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    assert result.result_text == "offline done", result
    reasons = _retry_reasons(events)
    assert len(reasons) == 3 and "stalled" in reasons[0] and "malformed" in reasons[2], reasons
    assert log.read_text() == "o\n"
    uses, results, _ = transcript_pairs(session)
    assert uses == results == ["b1"]
    assert fake_api.requests == []  # all offline
    await session.close()


async def test_interrupt_while_kept_tools_run_keeps_the_conversation_valid(
    fake_api, repo, monkeypatch
):
    import asyncio

    broken = Turn(
        blocks=(
            tool_use_block("Bash", {"command": "sleep 5"}, "b1"),
            Block("text", tuple("abc")),
        ),
        stop_reason="tool_use",
        drop_after=8,
    )
    fake_api.load([broken, text_turn("next")])
    session, events = make_session(fake_api, repo, opts=BYPASS, monkeypatch=monkeypatch)
    task = asyncio.ensure_future(session.run_turn("go"))
    while not any("Kept the response" in n.text for n in events.of(Notice)):
        await asyncio.sleep(0.01)
    session.interrupt()
    result = await asyncio.wait_for(task, 15)
    assert result.subtype == "interrupted"
    assert transcript_pairs(session)[:2] == (["b1"], ["b1"])
    assert (await session.run_turn("again")).result_text == "next"
    assert rejected(fake_api) == [] and list(results_sent(fake_api)) == ["b1"]
    await session.close()


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [(None, 90.0), ("", 90.0), ("250", 0.25), ("0", 90.0), ("-5", 90.0), ("soon", 90.0)],
)
def test_idle_timeout_setting(raw, seconds):
    from app.engine.retry import classify
    from app.engine.stream_guard import StreamFault, idle_timeout_s

    env = {} if raw is None else {"LATHE_STREAM_IDLE_TIMEOUT_MS": raw}
    assert idle_timeout_s(env) == seconds
    assert classify(StreamFault("stalled")).retryable


async def test_kept_response_keeps_signed_thinking_and_answers_invalid_json(
    fake_api, repo, monkeypatch
):
    """Thinking (with its signature, which the API requires before a tool_use) stays; a tool_use
    whose streamed JSON was invalid stays too, answered with the exact INVALID_JSON result."""
    bad = Block("tool_use", ('{"file_path": ', '"f0.txt"'), id="bad1", name="Read")
    broken = Turn(
        blocks=(
            Block("thinking", ("Let me ", "think.")),
            bad,
            tool_use_block("Read", {"file_path": "f1.txt"}, "r1"),
            Block("text", tuple("cut here")),
        ),
        stop_reason="tool_use",
        drop_after=21,
    )
    fake_api.load([broken, text_turn("fine")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    assert (await session.run_turn("go")).result_text == "fine"
    assert rejected(fake_api) == []
    kept, answers = fake_api.bodies()[1]["messages"][-2:]
    assert [b["type"] for b in kept["content"]] == ["thinking", "tool_use", "tool_use"]
    assert kept["content"][0]["thinking"] == "Let me think."
    assert kept["content"][0]["signature"].startswith("scripted-")
    assert answers["content"][0]["content"] == '{"INVALID_JSON": "{\\"file_path\\": \\"f0.txt\\""}'
    assert answers["content"][1]["content"] == "1\tfile 1"
    await session.close()
