"""The real `lathe -p` in a subprocess against the HTTP fake of the API."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from app.model.scenario import Block, Turn, text_turn, tool_use_block, turn_of
from app.transcript import load_transcript, project_transcripts_dir

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "a.txt").write_text("alpha\nbeta\n")
    return project


def env_for(fake, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        ANTHROPIC_API_KEY="k",
        ANTHROPIC_BASE_URL=fake.url,
        LATHE_RETRY_BASE_MS="5",
        PYTHONPATH=str(ROOT),
    )
    env.update(extra)
    return env


def lathe(
    args: list[str], cwd: Path, env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def spawn(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_text_output(fake_api, repo):
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": "a.txt"}, "r1")]),
            text_turn("The file says alpha."),
        ]
    )
    proc = lathe(["-p", "what is in a.txt"], repo, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "The file says alpha.\n"


def test_json_output(fake_api, repo):
    fake_api.load([text_turn("done")])
    proc = lathe(["-p", "hi", "--output-format", "json"], repo, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    obj = json.loads(proc.stdout)
    assert obj["type"] == "result" and obj["subtype"] == "success" and obj["is_error"] is False
    assert obj["result"] == "done" and obj["num_turns"] == 1 and obj["permission_denials"] == []
    assert set(obj) >= {"duration_ms", "session_id", "usage", "total_cost_usd"}


def test_stream_json_shapes_and_denials(fake_api, repo):
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Read", {"file_path": "a.txt"}, "r1"),
                    tool_use_block("Bash", {"command": "touch made.txt"}, "b1"),
                ]
            ),
            text_turn("ok"),
        ]
    )
    proc = lathe(["-p", "go", "--output-format", "stream-json"], repo, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    out = lines(proc.stdout)
    assert [o["type"] for o in out] == ["system", "assistant", "user", "assistant", "result"]
    init = out[0]
    assert init["subtype"] == "init" and init["cwd"] == str(repo) and "Read" in init["tools"]
    assert init["permissionMode"] == "default" and init["mcp_servers"] == []
    user = out[2]["message"]
    assert [b["tool_use_id"] for b in user["content"]] == ["r1", "b1"]
    denial = user["content"][1]["content"]
    assert denial.startswith("Permission to use Bash was denied: ") and "touch made.txt" in denial
    assert out[-1]["permission_denials"][0]["tool_use_id"] == "b1"
    assert not (repo / "made.txt").exists()
    assert len({o["session_id"] for o in out}) == 1


def test_allowed_tools_flag(fake_api, repo):
    fake_api.load(
        [turn_of([tool_use_block("Bash", {"command": "touch made.txt"}, "b1")]), text_turn("ok")]
    )
    proc = lathe(["-p", "go", "--allowedTools", "Bash(touch:*)"], repo, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert (repo / "made.txt").exists()


def test_partial_messages(fake_api, repo):
    fake_api.load([text_turn("streamed words here")])
    proc = lathe(
        ["-p", "hi", "--output-format", "stream-json", "--include-partial-messages"],
        repo,
        env_for(fake_api),
    )
    kinds = [o["type"] for o in lines(proc.stdout)]
    assert "stream_event" in kinds and kinds.index("stream_event") < kinds.index("assistant")


def test_no_credentials_exits_2(repo):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("ANTHROPIC_API_KEY", None)
    proc = lathe(["-p", "hi"], repo, env)
    assert proc.returncode == 2
    assert "ANTHROPIC_API_KEY" in proc.stderr and "--model demo" in proc.stderr


def test_bad_script_exits_2(repo, tmp_path):
    script = tmp_path / "bad.json"
    script.write_text('{"turns": [{"blocks": [{"type": "tool_use"}]}]}')
    proc = lathe(
        ["-p", "hi", "--model-script", str(script)], repo, dict(os.environ, PYTHONPATH=str(ROOT))
    )
    assert proc.returncode == 2 and "bad.json" in proc.stderr


def test_api_error_exits_1(fake_api, repo):
    from app.model.scenario import parse_scenario

    fake_api.load(parse_scenario({"turns": [{"error": 401, "message": "invalid x-api-key"}]}))
    proc = lathe(["-p", "hi"], repo, env_for(fake_api))
    assert proc.returncode == 1 and "invalid x-api-key" in proc.stderr


def test_max_turns_exits_1(fake_api, repo):
    fake_api.load(
        [turn_of([tool_use_block("Read", {"file_path": "a.txt"}, f"r{i}")]) for i in range(3)]
    )
    proc = lathe(
        ["-p", "hi", "--max-turns", "1", "--output-format", "json"], repo, env_for(fake_api)
    )
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["subtype"] == "error_max_turns"


def test_demo_model_runs_offline(repo):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = lathe(
        ["-p", "show me around", "--model", "demo", "--permission-mode", "acceptEdits"],
        repo,
        env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "demo" in proc.stdout.lower()


def _wait_for(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


def _continue_is_valid(fake_api, repo) -> None:
    before = len(fake_api.bodies())
    fake_api.load([text_turn("continued fine")])
    proc = lathe(["-p", "and now?", "--continue"], repo, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "continued fine"
    assert len(fake_api.bodies()) == before + 1  # the fake accepted the conversation (no 400)


@pytest.mark.parametrize("moment", ["text", "tool", "permission_free"])
def test_sigint_then_continue(fake_api, repo, moment):
    if moment == "text":
        turns = [
            Turn(
                blocks=(Block("text", tuple(f"w{i} " for i in range(400))),),
                stop_reason="end_turn",
                delay=0.01,
            )
        ]
        ready = lambda: len(fake_api.requests) >= 1  # noqa: E731
        args: list[str] = []
    else:
        turns = [
            turn_of(
                [
                    tool_use_block(
                        "Bash", {"command": "echo started > started.txt; sleep 30"}, "long"
                    )
                ]
            )
        ]
        ready = lambda: (repo / "started.txt").exists()  # noqa: E731
        args = (
            ["--permission-mode", "bypassPermissions"]
            if moment == "tool"
            else ["--allowedTools", "Bash"]
        )
    fake_api.load(turns)
    proc = spawn(["-p", "go", *args], repo, env_for(fake_api))
    try:
        _wait_for(ready)
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, proc.stderr.read() if proc.stderr else ""
    _continue_is_valid(fake_api, repo)


def test_kill_9_then_resume(fake_api, repo):
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block(
                        "Bash", {"command": "echo started > started.txt; sleep 30"}, "long"
                    )
                ]
            )
        ]
    )
    proc = spawn(
        ["-p", "go", "--permission-mode", "bypassPermissions", "--output-format", "stream-json"],
        repo,
        env_for(fake_api),
    )
    _wait_for(lambda: (repo / "started.txt").exists())
    assert proc.stdout is not None
    session_id = json.loads(proc.stdout.readline())["session_id"]
    path = project_transcripts_dir(repo) / f"{session_id}.jsonl"
    # The tool starts mid-stream; the assistant message is on disk once the stream completed.
    _wait_for(lambda: path.exists() and '"long"' in path.read_text())
    proc.kill()
    proc.wait(timeout=10)
    loaded = load_transcript(path)
    assert loaded.repaired == 1  # the tool_use left without a result got a synthetic one
    fake_api.load([text_turn("resumed fine")])
    resumed = lathe(["-p", "still there?", "--resume", session_id], repo, env_for(fake_api))
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == "resumed fine"
    last = fake_api.bodies()[-1]["messages"]
    assert any(
        b.get("tool_use_id") == "long"
        for m in last
        for b in (m["content"] if isinstance(m["content"], list) else [])
    )


def test_cut_transcript_line_is_dropped(fake_api, repo):
    fake_api.load([text_turn("first")])
    proc = lathe(["-p", "one", "--output-format", "json"], repo, env_for(fake_api))
    session_id = json.loads(proc.stdout)["session_id"]
    path = project_transcripts_dir(repo) / f"{session_id}.jsonl"
    with path.open("a") as fh:
        fh.write('{"type":"message","message":{"role":"user","con')  # a crash mid-write
    fake_api.load([text_turn("second")])
    proc = lathe(["-p", "two", "--resume", session_id], repo, env_for(fake_api))
    assert proc.returncode == 0 and proc.stdout.strip() == "second"
    assert "cut short" in proc.stderr


def test_mcp_server_from_mcp_json(fake_api, repo):
    server = ROOT / "tests" / "integration" / "mcp" / "servers" / "demo_server.py"
    (repo / ".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"demo": {"command": sys.executable, "args": [str(server), "stdio"]}}}
        )
    )
    fake_api.load(
        [turn_of([tool_use_block("mcp__demo__echo", {"text": "hi"}, "m1")]), text_turn("echoed")]
    )
    proc = lathe(
        ["-p", "echo", "--output-format", "stream-json", "--allowedTools", "mcp__demo"],
        repo,
        env_for(fake_api),
        timeout=90,
    )
    assert proc.returncode == 0, proc.stderr
    out = lines(proc.stdout)
    assert out[0]["mcp_servers"] == [{"name": "demo", "status": "connected"}]
    assert "mcp__demo__echo" in out[0]["tools"]
    result = out[2]["message"]["content"][0]
    assert result["tool_use_id"] == "m1" and "echo: hi" in json.dumps(result["content"])
    # The MCP tool came after every built-in in the request, behind the cache breakpoint.
    tools = fake_api.bodies()[0]["tools"]
    marked = [i for i, t in enumerate(tools) if "cache_control" in t]
    assert len(marked) == 1 and not tools[marked[0]]["name"].startswith("mcp__")
    assert all(t["name"].startswith("mcp__demo__") for t in tools[marked[0] + 1 :])
    assert "mcp__demo__echo" in [t["name"] for t in tools]


def test_sigint_during_a_permission_hook_wait(fake_api, repo):
    # In -p the permission decision can still wait: on a PreToolUse hook that takes its time.
    (repo / ".claude").mkdir()
    hook = "touch hook-started; sleep 30"
    (repo / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}
                    ]
                }
            }
        )
    )
    fake_api.load([turn_of([tool_use_block("Bash", {"command": "touch never.txt"}, "b1")])])
    proc = spawn(["-p", "go", "--allowedTools", "Bash"], repo, env_for(fake_api))
    try:
        _wait_for(lambda: (repo / "hook-started").exists())
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert not (repo / "never.txt").exists()
    (repo / ".claude" / "settings.json").unlink()
    _continue_is_valid(fake_api, repo)


def test_bare_offers_only_bash_read_edit(fake_api, repo):
    fake_api.load([text_turn("ok")])
    proc = lathe(["-p", "hi", "--bare", "--output-format", "stream-json"], repo, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert lines(proc.stdout)[0]["tools"] == ["Bash", "Edit", "Read"]
    assert [t["name"] for t in fake_api.bodies()[0]["tools"]] == ["Bash", "Edit", "Read"]
