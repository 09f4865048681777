"""The transcript writer's lines in Claude Code's shape (app/transcript.py)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from app.transcript import (
    MAX_TOOL_USE_RESULT_CHARS,
    TranscriptWriter,
    git_branch,
    load_transcript,
    tool_use_result,
)


def _outcome(data, content="shown", is_error=False):  # type: ignore[no-untyped-def]
    block = {"type": "tool_result", "tool_use_id": "t", "content": content}
    return SimpleNamespace(data=data, result_block=block, is_error=is_error)


def test_tool_use_result_shapes() -> None:
    assert tool_use_result(_outcome({"a": 1})) == {"a": 1}
    assert tool_use_result(_outcome(None, "no such file", True)) == "Error: no such file"
    big = "x" * (MAX_TOOL_USE_RESULT_CHARS + 1)
    assert tool_use_result(_outcome(big, "preview")) == "preview"
    got = tool_use_result(_outcome(big, [{"type": "image"}]))
    assert got.startswith("[") and "not repeated" in got


def test_git_branch(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/topic/a\n")
    (tmp_path / "sub").mkdir()
    assert git_branch(tmp_path / "sub") == "topic/a"
    (tmp_path / ".git" / "HEAD").write_text("0123456789abcdef\n")
    assert git_branch(tmp_path) == ""


def test_compaction_lines_and_a_boundary_cut_short(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    writer = TranscriptWriter(path, cwd=str(tmp_path))
    writer.append_system("S", "session_start", "lathe session started")
    writer.append_message("S", {"role": "user", "content": "BEFORE"})
    writer.append_message("S", {"role": "assistant", "content": [{"type": "text", "text": "a"}]})
    before = writer.last_uuid
    summary = [{"role": "user", "content": "SUMMARY"}, {"role": "assistant", "content": "ok"}]
    assert writer.append_compaction("S", summary, {"trigger": "manual", "preTokens": 9}, "sum")
    writer.append_message("S", {"role": "user", "content": "AFTER"})
    writer.close()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    boundary = lines[3]
    assert boundary["subtype"] == "compact_boundary" and boundary["parentUuid"] is None
    assert boundary["logicalParentUuid"] == before
    assert boundary["compactMetadata"] == {"trigger": "manual", "preTokens": 9}
    assert lines[4]["isCompactSummary"] is True and lines[4]["parentUuid"] == boundary["uuid"]
    assert lines[6] == {"type": "summary", "summary": "sum", "leafUuid": lines[5]["uuid"]}
    loaded = load_transcript(path)
    assert [m["content"] for m in loaded.messages][:2] == ["SUMMARY", "ok"]
    assert loaded.earlier[0]["content"] == "BEFORE" and loaded.session_id == "S"
    # Killed right after the boundary: resume from before it rather than from nothing.
    path.write_text("".join(json.dumps(x) + "\n" for x in lines[:4]))
    loaded = load_transcript(path)
    assert loaded.messages[0]["content"] == "BEFORE"
    assert any("no summary after it" in w for w in loaded.warnings)
