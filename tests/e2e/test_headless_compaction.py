"""`lathe -p` on long sessions, and `/compact`, `/context` headless (like Claude Code's
`claude -p "/compact ..." --continue`), the real CLI in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.model.scenario import text_turn
from app.transcript import find_latest, load_transcript
from tests.support.long_script import long_turns, make_files

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    return project


def lathe(args: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LATHE_RETRY_BASE_MS": "5", **extra}
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def scenario_json(turns: list, **top: object) -> dict:
    """The scenario file format, written the way a user would (see SCENARIOS.md)."""
    out = []
    for turn in turns:
        blocks = []
        for b in turn.blocks:
            if b.type == "text":
                blocks.append({"type": "text", "text": b.text})
            else:
                blocks.append({"type": "tool_use", "name": b.name, "input": dict(b.input)})
        out.append({"blocks": blocks})
    return {"turns": out, **top}


def test_long_scripted_session_in_print_mode(repo: Path) -> None:
    files = make_files(repo, 4, 200)
    script = repo / "long.json"
    turns = long_turns(60, files)
    script.write_text(json.dumps(scenario_json(turns, context_limit=40_000, auto_summary=True)))
    (repo / "ctx.toml").write_text("[context]\nwindow = 40000\n")
    run = lathe(
        [
            "-p",
            "review",
            "--model-script",
            str(script),
            "--settings",
            "ctx.toml",
            "--output-format",
            "stream-json",
        ],
        repo,
    )
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    boundaries = [x for x in lines if x.get("subtype") == "compact_boundary"]
    assert len(boundaries) >= 2 and all(
        b["compact_metadata"]["trigger"] == "auto" for b in boundaries
    )
    result = lines[-1]
    assert result["type"] == "result" and not result["is_error"]
    assert result["result"] == "All modules reviewed; the report is done."
    assert "conversation compacted (auto)" in run.stderr


def test_compact_headless_with_continue(fake_api, repo: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake_api.url}
    fake_api.load(
        [
            text_turn("the answer is 42"),
            text_turn("<summary>Asked; said 42.</summary>"),
            text_turn("still 42"),
        ]
    )
    first = lathe(["-p", "what is the answer?"], repo, **env)
    assert first.returncode == 0 and first.stdout.strip() == "the answer is 42"
    compacted = lathe(
        ["-p", "/compact keep the number", "--continue", "--output-format", "json"], repo, **env
    )
    assert compacted.returncode == 0, compacted.stderr
    result = json.loads(compacted.stdout)
    assert result["result"].startswith("Compacted:") and not result["is_error"]
    assert "keep the number" in json.dumps(fake_api.bodies()[-1]["messages"][-1])
    path = find_latest(repo)
    assert path is not None
    loaded = load_transcript(path)
    assert "Asked; said 42." in loaded.messages[0]["content"][0]["text"]
    assert loaded.earlier  # the full history stays on disk
    again = lathe(["-p", "and now?", "--continue"], repo, **env)
    assert again.returncode == 0 and again.stdout.strip() == "still 42"
    sent = fake_api.bodies()[-1]["messages"]
    assert "Asked; said 42." in json.dumps(sent[0]) and "the answer is 42" not in json.dumps(sent)


def test_context_headless(fake_api, repo: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake_api.url}
    run = lathe(["-p", "/context"], repo, **env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Context: ") and "Tools" in run.stdout
    assert fake_api.bodies() == []  # no model call for it


def test_todo_list_survives_a_compaction_in_a_later_process(repo: Path) -> None:
    """The plan written in one run is still there when a `--continue` run compacts (found by
    the black-box attack: the list lived only in the first process's memory)."""
    todos = [
        {"content": "TODO_PENDING_ALPHA", "status": "pending", "activeForm": "doing alpha"},
        {"content": "TODO_INPROG_BETA", "status": "in_progress", "activeForm": "doing beta"},
    ]
    first = repo / "plan.json"
    first.write_text(
        json.dumps(
            {
                "turns": [
                    {
                        "blocks": [
                            {"type": "tool_use", "name": "TodoWrite", "input": {"todos": todos}}
                        ]
                    },
                    {"blocks": [{"type": "text", "text": "listed"}]},
                ]
            }
        )
    )
    assert lathe(["-p", "plan", "--model-script", str(first)], repo).returncode == 0
    second = repo / "compact.json"
    second.write_text(json.dumps({"turns": [], "auto_summary": True, "final_text": "x"}))
    run = lathe(["-p", "/compact", "--continue", "--model-script", str(second)], repo)
    assert run.returncode == 0, run.stderr
    path = find_latest(repo)
    assert path is not None
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    at = max(i for i, r in enumerate(records) if r.get("subtype") == "compact_boundary")
    assert records[at + 1].get("isCompactSummary"), "no compaction recorded"
    kept = json.dumps([r["message"] for r in records[at + 1 :] if "message" in r])
    assert "The todo list (TodoWrite)" in kept
    assert "TODO_PENDING_ALPHA" in kept and "TODO_INPROG_BETA" in kept


def test_a_failed_compact_says_why_in_text_mode(repo: Path) -> None:
    """A summary the model refused leaves the conversation as it was, and text mode says so
    on stderr instead of exiting 1 in silence (found by the black-box attack)."""
    first = repo / "one.json"
    first.write_text(json.dumps({"turns": [{"blocks": [{"type": "text", "text": "hello"}]}]}))
    assert lathe(["-p", "hi", "--model-script", str(first)], repo).returncode == 0
    refusal = repo / "refuse.json"
    refusal.write_text(
        json.dumps(
            {"turns": [{"blocks": [{"type": "text", "text": "no"}], "stop_reason": "refusal"}]}
        )
    )
    run = lathe(["-p", "/compact", "--continue", "--model-script", str(refusal)], repo)
    assert run.returncode == 1
    assert run.stdout == ""
    assert "lathe:" in run.stderr and "nothing was changed" in run.stderr, run.stderr
