"""Long sessions against the HTTP fake enforcing a context limit: accounting, clearing old tool
results, automatic, reactive and manual compaction, PreCompact hooks, resuming a compacted
transcript. Real tools, real files, the real SDK."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.engine.compact_prompt import SUMMARY_INTRO
from app.engine.events import (
    CompactionFailed,
    CompactionFinished,
    ContextUpdated,
    ErrorOccurred,
    Notice,
)
from app.model.context_limit import request_tokens
from app.model.scenario import Turn, text_turn, tool_use_block, turn_of
from app.transcript import load_transcript
from tests.support.engine import make_session
from tests.support.long_script import long_turns, make_files

WINDOW = 40_000
# For the tests where five big reads must fit and the sixth must not: the window, plus room for
# the built-in tools' definitions (about 10k tokens; this moves when a built-in tool is added).
READ_WINDOW = WINDOW + 4_000


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    return project


def settings(repo: Path, **context: Any) -> CliOptions:
    lines = ["[context]", f"window = {context.pop('window', WINDOW)}"]
    for key, value in context.items():
        lines.append(f"{key} = {json.dumps(value)}")
    path = repo / "ctx.toml"
    path.write_text("\n".join(lines) + "\n")
    return CliOptions(settings=str(path))


def first_text(message: dict[str, Any]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else content[0].get("text", "")


async def test_long_session_compacts_and_completes(fake_api, repo, monkeypatch):
    files = make_files(repo, 4, 200)
    fake_api.context_limit = WINDOW
    fake_api.auto_summary = True
    fake_api.load(long_turns(60, files))
    session, events = make_session(fake_api, repo, opts=settings(repo), monkeypatch=monkeypatch)
    result = await session.run_turn("review every module")
    assert result.subtype == "success", result.result_text
    assert result.result_text == "All modules reviewed; the report is done."
    compactions = events.of(CompactionFinished)
    assert len(compactions) >= 2
    assert not events.of(ErrorOccurred) and not events.of(CompactionFailed)
    # No request was refused: each was compacted before it could pass the limit.
    assert {r.status for r in fake_api.requests} == {200}
    assert max(request_tokens(b) for b in fake_api.bodies()) + 16_000 <= WINDOW
    for c in compactions:
        assert c.trigger == "auto" and c.tokens_after < c.tokens_before
    # The conversation now opens with the summary, the todo list and re-read files.
    opening = json.dumps(session.messages[0])
    assert first_text(session.messages[0]).startswith(SUMMARY_INTRO)
    assert "Review every module" in opening and "re-read from disk" in opening
    assert "Primary Request and Intent" in opening
    # The meter followed: it went down after each compaction.
    used = [e.used for e in events.of(ContextUpdated)]
    assert max(used) < WINDOW and min(used) < max(used) // 2
    # The transcript keeps everything and records each boundary; loading resumes compacted.
    path = session.parts.transcript.path
    records = [json.loads(line) for line in path.read_text().splitlines()]
    boundaries = [r for r in records if r.get("subtype") == "compact_boundary"]
    assert len(boundaries) == len(compactions)
    # Claude Code's shape: a boundary starts a new chain and names the line before it.
    assert all(b["parentUuid"] is None and b["logicalParentUuid"] for b in boundaries)
    assert all(b["compactMetadata"]["trigger"] == "auto" for b in boundaries)
    summaries = [r for r in records if r.get("isCompactSummary")]
    assert len(summaries) == len(compactions)
    assert all(first_text(r["message"]).startswith(SUMMARY_INTRO) for r in summaries)
    assert sum(r["type"] == "summary" for r in records) == len(compactions)
    assert sum(r["type"] in ("user", "assistant") for r in records) > 100
    loaded = load_transcript(path)
    assert first_text(loaded.messages[0]).startswith(SUMMARY_INTRO)
    assert len(loaded.earlier) > len(loaded.messages)


async def test_resume_continues_from_the_compacted_state(fake_api, repo, monkeypatch):
    files = make_files(repo, 2, 200)
    fake_api.load([*long_turns(30, files)[:-1], text_turn("first done")])
    fake_api.auto_summary = True
    fake_api.context_limit = WINDOW
    session, events = make_session(fake_api, repo, opts=settings(repo), monkeypatch=monkeypatch)
    await session.run_turn("first")
    assert events.of(CompactionFinished)
    await session.close()
    fake_api.load([text_turn("resumed fine")])
    opts = settings(repo)
    opts.continue_session = True
    again, _ = make_session(fake_api, repo, opts=opts, monkeypatch=monkeypatch)
    result = await again.run_turn("go on")
    assert result.result_text == "resumed fine"
    sent = fake_api.bodies()[-1]["messages"]
    assert first_text(sent[0]).startswith(SUMMARY_INTRO)
    text = session.parts.transcript.path.read_text()
    records = text.count('"type":"user"') + text.count('"type":"assistant"')
    assert len(sent) < records // 2


def big_read_turns(files: list[str], n: int) -> list[Turn]:
    return [
        turn_of([tool_use_block("Read", {"file_path": files[i % len(files)]})]) for i in range(n)
    ]


async def test_prompt_too_long_compacts_and_retries_once(fake_api, repo, monkeypatch):
    files = make_files(repo, 3, 400)  # ~6k tokens each
    opts = settings(repo, window=READ_WINDOW, auto_compact=False, clear_tool_results=False)
    fake_api.context_limit = READ_WINDOW
    # Five reads fit; the sixth request is refused (about 30k tokens + 16k of max_tokens).
    fake_api.load(
        [
            *big_read_turns(files, 5),
            text_turn("<summary>read three files</summary>"),
            text_turn("finished"),
        ]
    )
    session, events = make_session(fake_api, repo, opts=opts, monkeypatch=monkeypatch)
    result = await session.run_turn("read them")
    assert result.subtype == "success" and result.result_text == "finished"
    refused = [r for r in fake_api.requests if r.status == 400]
    assert len(refused) == 1
    assert any("RECOVER" in n.text.upper() or "compacting" in n.text for n in events.of(Notice))
    assert len(events.of(CompactionFinished)) == 1
    # The summary request forbade tools; the retried request opened with the summary.
    bodies = fake_api.bodies()
    assert bodies[-2]["tool_choice"] == {"type": "none"}
    assert first_text(bodies[-1]["messages"][0]).startswith(SUMMARY_INTRO)


async def test_failed_recovery_is_reported_and_the_session_stays_usable(
    fake_api, repo, monkeypatch
):
    files = make_files(repo, 3, 400)
    opts = settings(repo, window=READ_WINDOW, auto_compact=False, clear_tool_results=False)
    fake_api.context_limit = READ_WINDOW
    fake_api.load(
        [
            *big_read_turns(files, 5),
            Turn(error=400, error_message="summary refused"),  # the summary request fails
            text_turn("<summary>the six reads</summary>"),  # next turn's recovery works
            text_turn("back on track"),
        ]
    )
    session, events = make_session(fake_api, repo, opts=opts, monkeypatch=monkeypatch)
    before = list(session.messages)
    result = await session.run_turn("read them")
    assert result.is_error and "exceed context limit" in result.result_text
    failed = events.of(CompactionFailed)
    assert len(failed) == 1 and "summary refused" in failed[0].message
    told = [n.text for n in events.of(Notice) if n.level == "error"]
    assert told and "summary refused" in told[0] and "/clear" in told[0]
    assert len(session.messages) > len(before)  # nothing was lost
    # Once per turn, never a loop: one refused request, one summary request, no more.
    assert [r.status for r in fake_api.requests].count(400) == 2
    result = await session.run_turn("try again")
    assert result.subtype == "success" and result.result_text == "back on track"


async def test_a_prompt_that_cannot_fit_ends_the_turn_without_looping(fake_api, repo, monkeypatch):
    opts = settings(repo, auto_compact=False)
    fake_api.context_limit = WINDOW
    session, events = make_session(fake_api, repo, opts=opts, monkeypatch=monkeypatch)
    result = await session.run_turn("x " * (WINDOW * 3))
    # One prompt alone: nothing to compact, so none is tried (tui-r4 F2): one plain line.
    assert result.is_error and result.result_text.startswith("Prompt is too long: the request is")
    assert "A conversation of one prompt cannot be compacted." in result.result_text
    assert not events.of(CompactionFailed)
    assert len(fake_api.requests) == 1


async def test_manual_compact_with_instructions_and_pre_compact_hook(fake_api, repo, monkeypatch):
    stdin_file = repo / "hook-input.json"
    (repo / ".claude").mkdir()
    hook = {"hooks": [{"type": "command", "command": f"cat > {stdin_file}"}]}
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreCompact": [hook]}}))
    fake_api.load(
        [text_turn("hello there"), text_turn("<analysis>x</analysis><summary>S1</summary>")]
    )
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn("say hello")
    result = await session.compact("keep the API names")
    assert result.subtype == "success" and result.result_text.startswith("Compacted:")
    payload = json.loads(stdin_file.read_text())
    assert payload["hook_event_name"] == "PreCompact"
    assert payload["trigger"] == "manual" and payload["custom_instructions"] == "keep the API names"
    last = fake_api.bodies()[-1]["messages"][-1]["content"][-1]["text"]
    assert "keep the API names" in last
    assert session.messages[0]["content"][0]["text"].endswith("<summary>\nS1\n</summary>")
    assert [e.trigger for e in events.of(CompactionFinished)] == ["manual"]


async def test_pre_compact_hook_can_block(fake_api, repo, monkeypatch):
    (repo / ".claude").mkdir()
    hook = {"matcher": "manual", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreCompact": [hook]}}))
    fake_api.load([text_turn("hello")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn("hi")
    kept = list(session.messages)
    result = await session.compact("")
    assert result.is_error and "PreCompact" in result.result_text and "no" in result.result_text
    assert session.messages == kept and len(fake_api.bodies()) == 1


async def test_old_tool_results_are_cleared_in_batches(fake_api, repo, monkeypatch):
    files = make_files(repo, 3, 100)  # ~1.5k tokens each
    opts = settings(repo, window=200_000, tool_results_budget=3000)
    fake_api.load([*big_read_turns(files, 12), text_turn("done")])
    session, _ = make_session(fake_api, repo, opts=opts, monkeypatch=monkeypatch)
    result = await session.run_turn("read")
    assert result.result_text == "done"
    bodies = fake_api.bodies()
    final = bodies[-1]["messages"]
    results = [
        b
        for m in final
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    cleared = [r for r in results if str(r["content"]).startswith("[Old tool result cleared")]
    assert cleared and len(cleared) < len(results)
    assert results[-1] not in cleared  # the newest stays whole
    assert (
        '"file_path": "module_00.py"' in cleared[0]["content"] and "Read" in cleared[0]["content"]
    )
    # Batches: most requests leave every earlier message exactly as the request before sent it.
    changed = sum(
        1
        for prev, cur in itertools.pairwise(bodies)
        if json.dumps(_plain(cur["messages"][: len(prev["messages"]) - 1]))
        != json.dumps(_plain(prev["messages"][:-1]))
    )
    assert 1 <= changed <= len(bodies) // 3
    assert session.context_state.cleared_results == len(cleared)


def _plain(messages: list[dict[str, Any]]) -> list[Any]:
    """Messages without cache_control markers (the breakpoint moves every request)."""
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            content = [{k: v for k, v in b.items() if k != "cache_control"} for b in content]
        out.append({"role": m["role"], "content": content})
    return out


async def test_context_breakdown_and_meter(fake_api, repo, monkeypatch):
    (repo / "LATHE.md").write_text("Always write tests. " * 200)
    fake_api.load([turn_of([tool_use_block("Read", {"file_path": "LATHE.md"})]), text_turn("ok")])
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn("read the memory file")
    lines = session.context_breakdown()
    assert lines[0].startswith("Context: ") and "of 200.0k tokens used" in lines[0]
    parts = {line.split()[0] for line in lines[1:6]}
    assert parts == {"System", "Memory", "Tools", "Messages", "Tool"}
    memory = next(line for line in lines if line.strip().startswith("Memory files"))
    assert "0.0%" not in memory
    update = events.of(ContextUpdated)[-1]
    assert update.window == 200_000 and 0 < update.used < 20_000
    # The figure is the API's count of the last request plus the reply: not a guess.
    usage = session.usage.last
    assert update.used >= usage["input_tokens"] + usage["output_tokens"]
