"""The real `lathe -p` against the HTTP fake when streams break, stall and send garbage: a tool that
ran before the break runs once and its real result reaches the model, even when lathe gives up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from app.model.scenario import Block, Turn, text_turn, tool_use_block
from app.transcript import load_transcript, project_transcripts_dir

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "a.txt").write_text("alpha\n")
    return project


def run(args: list[str], cwd: Path, fake: Any, **extra: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.update(
        ANTHROPIC_API_KEY="k",
        ANTHROPIC_BASE_URL=fake.url,
        LATHE_RETRY_BASE_MS="5",
        LATHE_STREAM_IDLE_TIMEOUT_MS="400",
        PYTHONPATH=str(ROOT),
        **extra,
    )
    return subprocess.run(
        [sys.executable, "-m", "app", "-p", *args, "--permission-mode", "bypassPermissions"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        b
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


def test_drop_then_stall_then_garbage_runs_the_command_once(fake_api, repo):
    log = repo / "side.log"
    fake_api.load(
        [
            Turn(
                blocks=(
                    tool_use_block("Bash", {"command": f"echo ran >> {log}"}, "b1"),
                    tool_use_block("Read", {"file_path": "a.txt"}, "r1"),
                    Block("text", tuple("never finished")),
                ),
                stop_reason="tool_use",
                drop_after=16,  # both tools complete, the text cut
            ),
            Turn(blocks=(Block("text", ("x", "y")),), stall_after=3),
            Turn(blocks=(Block("text", ("x", "y")),), malformed_after=3),
            text_turn("The command ran once."),
        ]
    )
    started = time.monotonic()
    proc = run(["run it"], repo, fake_api)
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "The command ran once.\n"
    assert log.read_text() == "ran\n"
    retries = [line for line in proc.stderr.splitlines() if "retrying in" in line]
    assert len(retries) == 3, proc.stderr
    assert "Kept the response up to its last complete block" in proc.stderr
    assert "stalled" in retries[1] and "malformed" in retries[2]
    bodies = fake_api.bodies(status=None)
    assert [r.status for r in fake_api.requests] == [200] * 4
    results = tool_results(bodies[-1])
    assert [r["tool_use_id"] for r in results] == ["b1", "r1"]
    assert results[1]["content"] == "1\talpha" and not results[0].get("is_error")
    # The kept message is complete blocks only; the cut text never reached the model.
    assert "never" not in json.dumps(bodies[-1]["messages"])
    assert elapsed < 30


def test_gave_up_after_a_tool_ran_and_continue_sends_its_result(fake_api, repo):
    log = repo / "side.log"
    fake_api.load(
        [
            Turn(
                blocks=(tool_use_block("Bash", {"command": f"echo ran >> {log}"}, "b1"),),
                stop_reason="tool_use",
                drop_after=7,
            ),
            text_turn("Continued with the result."),
        ]
    )
    proc = run(["run it"], repo, fake_api, LATHE_MAX_RETRIES="0")
    assert proc.returncode == 1, proc.stderr
    assert "gave up after 1 attempts" in proc.stderr
    assert log.read_text() == "ran\n"
    [path] = project_transcripts_dir(repo).glob("*.jsonl")
    loaded = load_transcript(path)
    assert loaded.repaired == 0
    assert [b["tool_use_id"] for m in loaded.messages for b in tool_results({"messages": [m]})] == [
        "b1"
    ]
    again = run(["--continue", "go on"], repo, fake_api)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "Continued with the result.\n"
    assert log.read_text() == "ran\n"
    last = fake_api.bodies()[-1]
    [result] = tool_results(last)
    assert result["tool_use_id"] == "b1" and not result.get("is_error")
    assert [r.status for r in fake_api.requests] == [200, 200]
