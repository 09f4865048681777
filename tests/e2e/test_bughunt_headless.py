"""Bug hunt: the real `lathe -p` in failure paths: exit codes, stderr, and stdout staying JSON."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from app.model.scenario import Block, Turn, parse_scenario, text_turn, tool_use_block, turn_of
from tests.e2e.test_headless_cli import env_for, lathe, lines, spawn


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "a.txt").write_text("alpha\nbeta\n")
    return project


def _wait_for(predicate, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_max_turns_in_text_mode_says_why(fake_api, repo):
    fake_api.load([turn_of([tool_use_block("Read", {"file_path": "a.txt"}, "r1")])])
    proc = lathe(["-p", "hi", "--max-turns", "1"], repo, env_for(fake_api))
    assert proc.returncode == 1
    # An exit 1 with nothing on either stream leaves the user guessing.
    assert "maximum number of turns (1)" in proc.stderr


def test_stream_json_stays_json_through_retries_and_a_fatal_error(fake_api, repo):
    bad_json = Block("tool_use", ('{"file_path": ',), id="bad1", name="Read")
    overloaded = parse_scenario({"turns": [{"error": 529}]}).turns[0]
    # A 400 lathe cannot cure ("prompt is too long" is no longer fatal: it compacts and retries).
    fatal = parse_scenario({"turns": [{"error": 400, "message": "model: unknown model"}]}).turns[0]
    cut = Turn(blocks=(Block("text", tuple("abcdef")),), error_event_after=4)
    fake_api.load([overloaded, turn_of([bad_json]), cut, fatal])
    proc = lathe(
        ["-p", "go", "--output-format", "stream-json", "--include-partial-messages"],
        repo,
        env_for(fake_api),
    )
    assert proc.returncode == 1
    out = lines(proc.stdout)  # every line parses
    assert out[0]["type"] == "system" and out[-1]["type"] == "result"
    result = out[-1]
    assert result["is_error"] is True and result["subtype"] == "error_during_execution"
    assert "model: unknown model" in result["result"] and "model: unknown model" in proc.stderr
    assert result["num_turns"] == 2
    # Both answered requests and the one cut mid-stream were billed and are counted.
    assert result["usage"]["input_tokens"] > 0 and result["usage"]["output_tokens"] > 0
    users = [o for o in out if o["type"] == "user"]
    assert users[0]["message"]["content"][0]["tool_use_id"] == "bad1"


def test_result_usage_sums_every_response(fake_api, repo):
    fake_api.load(
        [
            Turn(
                blocks=(tool_use_block("Read", {"file_path": "a.txt"}, "r1"),),
                stop_reason="tool_use",
                usage={"input_tokens": 100, "output_tokens": 10, "cache_read_input_tokens": 7},
            ),
            Turn(
                blocks=(Block("text", ("done",)),),
                usage={"input_tokens": 200, "output_tokens": 20, "cache_creation_input_tokens": 3},
            ),
        ]
    )
    proc = lathe(
        ["-p", "go", "--output-format", "json", "--model", "claude-sonnet-4-5"],
        repo,
        env_for(fake_api),
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["usage"] == {
        "input_tokens": 300,
        "output_tokens": 30,
        "cache_read_input_tokens": 7,
        "cache_creation_input_tokens": 3,
    }
    expected = (300 * 3 + 30 * 15 + 7 * 0.3 + 3 * 3.75) / 1e6
    assert result["total_cost_usd"] == pytest.approx(expected, abs=1e-6)
    assert result["num_turns"] == 2 and result["result"] == "done"


def test_sigint_during_session_start_hook(fake_api, repo):
    (repo / ".claude").mkdir()
    hook = {"hooks": [{"type": "command", "command": "touch hook-started; sleep 3"}]}
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"SessionStart": [hook]}}))
    fake_api.load([text_turn("must not be asked")])
    proc = spawn(["-p", "go", "--output-format", "stream-json"], repo, env_for(fake_api))
    try:
        _wait_for(lambda: (repo / "hook-started").exists())
        proc.send_signal(signal.SIGINT)
        stdout, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert fake_api.bodies() == []  # Ctrl+C was not ignored: the model was never asked
    out = lines(stdout)
    assert out[-1]["type"] == "result" and out[-1]["is_error"] is True
