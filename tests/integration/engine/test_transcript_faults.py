"""Transcripts under faults: cut at any byte, duplicated, interleaved, reordered, with bad bytes,
absurd lines, a failing disk. After every one, two `--continue`s in a row keep every prompt that
was on disk and every request is one the fake API (which enforces the API's rules) accepts.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app import transcript_repair
from app.cli import CliOptions
from app.model.scenario import text_turn, tool_use_block, turn_of
from app.transcript import REPAIRED_RESULT, load_transcript
from tests.support.engine import make_session

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "small.txt").write_text("small file\n")
    # Read's output of this is one long transcript line: most random cuts land inside it.
    (project / "big.txt").write_text("".join(f"line {i} {'x' * 60}\n" for i in range(1500)))
    return project


def rejected(fake) -> list[Any]:
    return [r.body for r in fake.requests if r.status != 200]


def texts(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"], ensure_ascii=False)


async def _real_transcript(fake_api, repo, monkeypatch) -> tuple[Path, list[str]]:
    """Three prompts, with tool calls (one with a large result), through the real engine."""
    prompts = ["PROMPT-ONE read small", "PROMPT-TWO read big", "PROMPT-THREE say hi"]
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": "small.txt"}, "t1")]),
            text_turn("read small"),
            turn_of(
                [
                    tool_use_block("Read", {"file_path": "big.txt"}, "t2"),
                    tool_use_block("Grep", {"pattern": "line 7"}, "t3"),
                ]
            ),
            text_turn("read big"),
            text_turn("hi"),
        ]
    )
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    for prompt in prompts:
        assert not (await session.run_turn(prompt)).is_error
    await session.close()
    assert session.parts.transcript is not None
    return session.parts.transcript.path, prompts


async def _continue(fake_api, repo, monkeypatch, prompt: str) -> dict[str, Any]:
    fake_api.load([text_turn("ok")])
    session, _ = make_session(
        fake_api, repo, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    result = await session.run_turn(prompt)
    await session.close()
    assert not result.is_error, result.result_text
    assert rejected(fake_api) == []
    body: dict[str, Any] = fake_api.bodies()[-1]
    return body


def _prompts_on_disk(raw: bytes, prompts: list[str]) -> list[str]:
    """The prompts whose whole line is in `raw`."""
    whole = raw[: raw.rfind(b"\n") + 1].decode("utf-8", "replace")
    return [p for p in prompts if p in whole]


async def test_random_byte_cuts_then_two_continues_lose_nothing(fake_api, repo, monkeypatch):
    path, prompts = await _real_transcript(fake_api, repo, monkeypatch)
    raw = path.read_bytes()
    rng = random.Random(12)
    cuts = sorted(rng.sample(range(1, len(raw) - 1), int(os.environ.get("LATHE_FAULT_CUTS", "10"))))
    print(f"\ncuts={len(cuts)} transcript={len(raw)} bytes")
    for n, cut in enumerate(cuts):
        path.write_bytes(raw[:cut])
        survivors = _prompts_on_disk(raw[:cut], prompts)
        await _continue(fake_api, repo, monkeypatch, f"AFTER-A-{n}")
        assert path.read_bytes().startswith(raw[: raw[:cut].rfind(b"\n") + 1])
        body = await _continue(fake_api, repo, monkeypatch, f"AFTER-B-{n}")
        seen = texts(body)
        # Before the fix the first continue appended onto the torn line, and the second lost it.
        for prompt in [*survivors, f"AFTER-A-{n}", f"AFTER-B-{n}"]:
            assert prompt in seen, (cut, prompt)


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _index(records: list[dict[str, Any]], role: str, needle: str) -> int:
    return next(
        i
        for i, r in enumerate(records)
        if r.get("type") in ("user", "assistant")
        and r["message"]["role"] == role
        and needle in json.dumps(r["message"])
    )


async def test_duplicated_assistant_line_and_result_line(fake_api, repo, monkeypatch):
    path, prompts = await _real_transcript(fake_api, repo, monkeypatch)
    records = _records(path)
    a = _index(records, "assistant", '"t2"')
    # The same message written twice, with a new timestamp (and, from an old writer, no uuid).
    again = {**records[a], "timestamp": "2099-01-01T00:00:00.000Z"}
    again.pop("uuid")
    records[a + 1 : a + 1] = [again, records[a + 1]]
    _write(path, records)
    body = await _continue(fake_api, repo, monkeypatch, "AFTER")
    assert all(p in texts(body) for p in prompts)
    assert REPAIRED_RESULT not in texts(body)


async def test_interleaved_writers_keep_every_real_result(fake_api, repo, monkeypatch):
    """Two lathes on one session before the lock: their lines alternate in one file."""
    path, prompts = await _real_transcript(fake_api, repo, monkeypatch)
    records = _records(path)
    header, first = records[:1], records[1:]
    second = []
    for r in first:
        r2 = json.loads(json.dumps(r).replace('"t1"', '"u1"').replace('"t2"', '"u2"'))
        r2 = json.loads(json.dumps(r2).replace('"t3"', '"u3"').replace("PROMPT-", "OTHER-"))
        r2["uuid"] = f"other-{r.get('uuid')}"
        r2["parentUuid"] = f"other-{r.get('parentUuid')}" if r.get("parentUuid") else None
        second.append(r2)
    merged = header + [x for pair in zip(first, second, strict=True) for x in pair]
    _write(path, merged)
    body = await _continue(fake_api, repo, monkeypatch, "AFTER")
    seen = texts(body)
    assert all(p in seen for p in prompts)
    assert all(p.replace("PROMPT-", "OTHER-") in seen for p in prompts)
    assert REPAIRED_RESULT not in seen  # every tool_use got its real result


async def test_out_of_order_lines_without_and_with_parent_links(fake_api, repo, monkeypatch):
    path, prompts = await _real_transcript(fake_api, repo, monkeypatch)
    records = _records(path)
    a = _index(records, "assistant", '"t1"')
    records[a], records[a + 1] = records[a + 1], records[a]  # the results before their tool_use
    _write(path, records)
    loaded = load_transcript(path)
    assert any("out of order" in w for w in loaded.warnings)
    body = await _continue(fake_api, repo, monkeypatch, "AFTER-1")
    assert REPAIRED_RESULT not in texts(body)
    # Without uuids (an older writer), the results still find their tool_use.
    records = [{k: v for k, v in r.items() if k not in ("uuid", "parentUuid")} for r in records]
    _write(path, records)
    body = await _continue(fake_api, repo, monkeypatch, "AFTER-2")
    assert REPAIRED_RESULT not in texts(body) and all(p in texts(body) for p in prompts)


async def test_older_lathe_lines_are_read_and_repaired(fake_api, repo, monkeypatch):
    """Transcripts written before lathe took Claude Code's shape (`type: message`, a `session`
    line, float timestamps) still load, damaged ones included."""
    path, prompts = await _real_transcript(fake_api, repo, monkeypatch)
    records = _records(path)
    assert records[0]["type"] == "system" and records[0]["subtype"] == "session_start"
    shaped = [{"type": "session", "session_id": records[0]["sessionId"], "cwd": str(repo)}] + [
        {
            "type": "message",
            "session_id": r["sessionId"],
            "uuid": r["uuid"],
            "parentUuid": r["parentUuid"],
            "timestamp": 1767225600.5,
            "message": r["message"],
        }
        for r in records[1:]
    ]
    shaped.append(shaped[3])  # a duplicate by uuid
    shaped[4], shaped[5] = shaped[5], shaped[4]
    _write(path, shaped)
    body = await _continue(fake_api, repo, monkeypatch, "AFTER")
    assert all(p in texts(body) for p in prompts) and REPAIRED_RESULT not in texts(body)


async def test_invalid_utf8_is_replaced_not_dropped(fake_api, repo, monkeypatch):
    path, prompts = await _real_transcript(fake_api, repo, monkeypatch)
    raw = path.read_bytes().replace(b"PROMPT-TWO", b"PROMPT-\xff\xfeTWO", 1)
    raw = raw.replace(b"PROMPT-THREE", b"PROMPT-\\udc80THREE", 1)  # a lone surrogate escape
    path.write_bytes(raw)
    body = await _continue(fake_api, repo, monkeypatch, "AFTER")
    seen = texts(body)
    assert "PROMPT-\ufffd\ufffdTWO" in seen and "PROMPT-\ufffdTHREE" in seen
    assert prompts[0] in seen


async def test_deep_long_and_glued_lines(fake_api, repo, monkeypatch):
    path, prompts = await _real_transcript(fake_api, repo, monkeypatch)
    monkeypatch.setattr(transcript_repair, "MAX_LINE_BYTES", 200_000)
    deep = '{"type":"message","message":{"role":"user","content":' + "[" * 5000 + "]" * 5000 + "}}"
    long_line = json.dumps(
        {"type": "message", "message": {"role": "user", "content": "L" * 300_000}}
    )
    glued = '{"type":"message","message":{"role":"user","con' + json.dumps(
        {"type": "message", "message": {"role": "user", "content": "GLUED-PROMPT"}}
    )
    with path.open("a") as fh:
        fh.write(deep + "\n" + long_line + "\n" + glued + "\n")
    loaded = load_transcript(path)
    joined = "\n".join(loaded.warnings)
    assert "nested deeper than 100 levels" in joined and "over the 200000 limit" in joined
    assert "joined with the next" in joined
    body = await _continue(fake_api, repo, monkeypatch, "AFTER")
    seen = texts(body)
    assert all(p in seen for p in prompts) and "GLUED-PROMPT" in seen and "LLLL" not in seen


async def test_torn_tail_is_cut_on_disk_before_appending(fake_api, repo, monkeypatch):
    path, _ = await _real_transcript(fake_api, repo, monkeypatch)
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"type":"message","message":{"role":"user","con')
    fake_api.load([text_turn("ok")])
    session, _ = make_session(
        fake_api, repo, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    assert path.read_bytes() == whole  # cut before anything was appended
    await session.run_turn("AFTER")
    await session.close()
    assert path.read_bytes().startswith(whole)
    assert load_transcript(path).warnings == []


FAILING_DISK = r"""
import json, resource, signal, sys
from pathlib import Path
from app.transcript import TranscriptWriter, load_transcript

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
path = Path(sys.argv[1])
w = TranscriptWriter(path)
assert w.append_message("s", {"role": "user", "content": "before"})
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (path.stat().st_size + 1000, hard))
ok = w.append_message("s", {"role": "assistant", "content": "x" * 100000})
failure = w.failure
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
assert w.append_message("s", {"role": "user", "content": "after"})
loaded = load_transcript(path)
print(json.dumps({"ok": ok, "failure": failure, "messages": [m["content"] for m in
      loaded.messages], "warnings": loaded.warnings}))
"""


def test_a_write_that_fails_midway_is_cut_back(tmp_path):
    path = tmp_path / "t.jsonl"
    proc = subprocess.run(
        [sys.executable, "-c", FAILING_DISK, str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["ok"] is False and "File too large" in result["failure"]
    # The half-written line is gone: the next line starts clean and nothing is lost or glued.
    assert result["messages"] == ["before", "after"] and result["warnings"] == []


def test_a_whole_last_line_without_its_newline_is_kept(tmp_path):
    from app.transcript import truncate_torn_tail

    path = tmp_path / "t.jsonl"
    line = json.dumps({"type": "message", "message": {"role": "user", "content": "KEPT"}})
    path.write_text('{"type":"session"}\n' + line)
    assert truncate_torn_tail(path) == 0
    assert path.read_text() == '{"type":"session"}\n' + line + "\n"
    path.write_text('{"type":"session"}\n' + line[:-3])
    assert truncate_torn_tail(path) == len(line) - 3
    assert path.read_text() == '{"type":"session"}\n'


def test_one_line_per_block_assistant_messages_share_their_results():
    """Claude Code's shape: an assistant message with two tool_uses is two lines."""
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "a", "name": "X", "input": {}}],
        },
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "b", "name": "X", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "A"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b", "content": "B"}]},
    ]
    repaired, made_up = transcript_repair.repair_messages(messages)
    assert made_up == 0 and [m["role"] for m in repaired] == ["user", "assistant", "user"]
    assert [b["tool_use_id"] for b in repaired[2]["content"]] == ["a", "b"]
