"""Regressions of an attack on compaction (issue 14): what a compaction re-reads, what fits after
it, overflows past the first, a second summary of a summary, answers that are no summary. Real
sessions, real tools and files, the real SDK against the HTTP fake enforcing a context limit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.config.rules import parse_rule
from app.engine.compact_prompt import SUMMARY_INTRO
from app.engine.events import CompactionFailed, CompactionFinished, ErrorOccurred
from app.model.context_limit import request_tokens
from app.model.scenario import Turn, text_block, text_turn, tool_use_block, turn_of
from tests.support.engine import make_session

SECRET = "TOPSECRET_TOKEN_123"
OUTSIDE = "OUTSIDE_PRIVATE_999"


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    return project


def settings(repo: Path, text: str) -> CliOptions:
    path = repo / "ctx.toml"
    path.write_text(text)
    return CliOptions(settings=str(path))


def opening(session: Any) -> str:
    return json.dumps(session.messages[0])


def rereads(session: Any) -> list[str]:
    return [
        b["text"]
        for b in session.messages[0]["content"]
        if "re-read from disk after the compaction" in b.get("text", "")
    ]


async def test_denied_and_outside_reads_are_not_reread(fake_api, repo, tmp_path, monkeypatch):
    (repo / "secret.txt").write_text(SECRET + "\n")
    (repo / "pub.txt").write_text("public\n")
    (repo / "later.txt").write_text("LATER_DENIED_77\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.txt").write_text(OUTSIDE + "\n")
    opts = settings(repo, '[permissions]\ndeny = ["Read(./secret.txt)"]\n')
    fake_api.auto_summary = True
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Read", {"file_path": str(repo / "secret.txt")}),
                    tool_use_block("Read", {"file_path": str(outside / "private.txt")}),
                    tool_use_block("Write", {"file_path": str(outside / "w.txt"), "content": "x"}),
                    tool_use_block("Read", {"file_path": str(repo / "pub.txt")}),
                    tool_use_block("Read", {"file_path": str(repo / "later.txt")}),
                ]
            ),
            text_turn("ok"),
        ]
    )
    session, _ = make_session(fake_api, repo, opts=opts, monkeypatch=monkeypatch)
    result = await session.run_turn("read")
    assert result.subtype == "success"
    sent = json.dumps(fake_api.bodies())
    assert SECRET not in sent and OUTSIDE not in sent and "LATER_DENIED_77" in sent
    # A deny rule added since (as /permissions would) applies to the re-read as well.
    decider = session.deps.decider
    decider.set_context(decider.context.with_rules([parse_rule("Read(./later.txt)", "deny")]))
    ended = await session.compact()
    assert not ended.is_error, ended.result_text
    texts = rereads(session)
    assert len(texts) == 1 and "pub.txt" in texts[0] and "public" in texts[0]
    assert SECRET not in opening(session) and OUTSIDE not in opening(session)
    assert "LATER_DENIED_77" not in opening(session)
    assert not (outside / "w.txt").exists()


async def test_a_reread_goes_only_as_far_as_the_read(fake_api, repo, monkeypatch):
    body = "\n".join(f"line {i:04d}" for i in range(1, 1001))
    (repo / "big.txt").write_text(body + "\n")
    fake_api.auto_summary = True
    read = {"file_path": str(repo / "big.txt"), "offset": 100, "limit": 50}
    fake_api.load([turn_of([tool_use_block("Read", read)]), text_turn("ok")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn("read a part")
    ended = await session.compact()
    assert not ended.is_error, ended.result_text
    (text,) = rereads(session)
    assert "line 0100" in text and "line 0149" in text
    assert "line 0099" not in text and "line 0150" not in text


async def test_a_huge_read_then_compaction_fits_and_the_run_completes(fake_api, repo, monkeypatch):
    # The attacker's BIG case: one read far over the window; the compaction's re-read of that
    # same file must not make the compacted conversation overflow (it used to: "Nothing to
    # compact yet", then a 400).
    (repo / "huge.txt").write_text("".join(f"{i:07d} " + "y" * 90 + "\n" for i in range(3000)))
    opts = settings(repo, "[context]\nwindow = 30000\n")
    fake_api.context_limit = 30_000
    fake_api.auto_summary = True
    huge = str(repo / "huge.txt")
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": huge})]),
            turn_of([tool_use_block("Bash", {"command": f"head -c 60000 {huge}"})]),
            text_turn("FINAL DONE"),
        ]
    )
    session, events = make_session(fake_api, repo, opts=opts, monkeypatch=monkeypatch)
    result = await session.run_turn("huge")
    assert result.subtype == "success" and result.result_text == "FINAL DONE"
    assert not events.of(CompactionFailed) and not events.of(ErrorOccurred)
    assert {r.status for r in fake_api.requests} == {200}
    threshold = int(max(30_000 - 16_000, 15_000) * 0.9)
    for done in events.of(CompactionFinished):
        assert done.tokens_after < threshold * 0.75, done.tokens_after
    assert "huge" in json.dumps(fake_api.bodies()[-1]["messages"][0])


def bash_steps(n: int) -> list[Turn]:
    return [
        turn_of(
            [
                text_block(f"step {i}"),
                tool_use_block("Bash", {"command": f"seq {i * 1000} {i * 1000 + 2500}"}),
            ]
        )
        for i in range(n)
    ]


async def test_overflows_recover_per_request_and_the_server_window_is_learned(
    fake_api, repo, monkeypatch
):
    # lathe assumes 200k; the server allows 30k. The first overflow teaches the real window;
    # from then on compaction happens before a request overflows (it used to be fatal the
    # second time in a run).
    fake_api.context_limit = 30_000
    fake_api.auto_summary = True
    fake_api.load([*bash_steps(8), text_turn("FINAL DONE")])
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    assert session.context_window() == 200_000
    result = await session.run_turn("run the steps")
    assert result.subtype == "success" and result.result_text == "FINAL DONE"
    assert session.context_window() == 30_000
    assert [r.status for r in fake_api.requests].count(400) == 1
    assert len(events.of(CompactionFinished)) >= 2


async def test_each_request_may_recover_once_never_twice(fake_api, repo, monkeypatch):
    # The server's limit shrinks under lathe (a gateway): two requests of one run overflow.
    # Each is recovered once; a retried request that overflows again ends the turn.
    opts = settings(repo, "[context]\nauto_compact = false\n")
    fake_api.auto_summary = True
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": "echo one"})]),
            Turn(error=400, error_message="prompt is too long: 250000 tokens > 200000 maximum"),
            turn_of([tool_use_block("Bash", {"command": "echo two"})]),
            Turn(error=400, error_message="prompt is too long: 250000 tokens > 190000 maximum"),
            Turn(error=400, error_message="prompt is too long: 250000 tokens > 190000 maximum"),
        ]
    )
    session, events = make_session(fake_api, repo, opts=opts, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    assert result.is_error and "prompt is too long" in result.result_text
    assert len(events.of(CompactionFinished)) == 2
    assert [r.status for r in fake_api.requests].count(400) == 3
    assert session.context_window() == 190_000


async def test_a_second_compaction_keeps_the_first_summary_and_request(fake_api, repo, monkeypatch):
    opts = settings(repo, "[context]\nwindow = 30000\n")
    fake_api.context_limit = 30_000
    fake_api.auto_summary = True
    fake_api.load([*bash_steps(8), text_turn("FINAL DONE")])
    session, events = make_session(fake_api, repo, opts=opts, monkeypatch=monkeypatch)
    result = await session.run_turn("ORIGINAL-REQUEST-XYZ run the steps")
    assert result.subtype == "success", result.result_text
    assert len(events.of(CompactionFinished)) >= 2
    summaries = [b for b in fake_api.bodies() if b.get("tool_choice") == {"type": "none"}]
    for body in summaries:
        assert "ORIGINAL-REQUEST-XYZ" in json.dumps(body["messages"])
        assert request_tokens(body) + 16_000 <= 30_000
    first = session.messages[0]["content"][0]["text"]
    assert first.startswith(SUMMARY_INTRO) and "ORIGINAL-REQUEST-XYZ" in first


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (Turn(blocks=(text_block("I can't help with that."),), stop_reason="refusal"), "declined"),
        (
            turn_of([text_block("ok"), tool_use_block("Bash", {"command": "touch PWNED"})]),
            "called a tool",
        ),
        (
            Turn(blocks=(text_block("<analysis>never finishing"),), stop_reason="max_tokens"),
            "cut off",
        ),
    ],
)
async def test_an_answer_that_is_no_summary_changes_nothing(
    fake_api, repo, monkeypatch, answer, why
):
    fake_api.load([turn_of([tool_use_block("Bash", {"command": "echo hi"})]), text_turn("done")])
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn("say hi")
    before = json.dumps(session.messages)
    fake_api.load([answer])
    ended = await session.compact()
    assert ended.is_error and why in ended.result_text
    assert json.dumps(session.messages) == before
    assert events.of(CompactionFailed) and not events.of(CompactionFinished)
    assert not (repo / "PWNED").exists()
