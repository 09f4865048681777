"""The protocol's lines as the SDK would write them, without the SDK: error responses, the budget,
the exit code after an error result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.sdk.conftest import ROOT
from tests.fakeapi.server import FakeAPI


def run_lines(
    cwd: Path, env: dict[str, str], lines: list[dict[str, Any]], *flags: str
) -> tuple[int, list[dict[str, Any]], str]:
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
            *flags,
        ],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(ROOT)},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def test_errors_budget_and_exit_code(
    fake_api: FakeAPI, sdk_env: dict[str, str], repo: Path
) -> None:
    fake_api.enqueue(
        turn_of([tool_use_block("Read", {"file_path": str(repo / "a.txt")}, "toolu_b1")]),
        text_turn("never reached"),
    )
    code, out, err = run_lines(
        repo,
        sdk_env,
        [
            {
                "type": "control_request",
                "request_id": "r1",
                "request": {"subtype": "no_such_thing"},
            },
            {
                "type": "control_request",
                "request_id": "r2",
                "request": {"subtype": "mcp_reconnect", "serverName": "x"},
            },
            {
                "type": "control_request",
                "request_id": "r3",
                "request": {"subtype": "set_permission_mode", "mode": "bogus"},
            },
            {
                "type": "user",
                "message": {"role": "user", "content": "read it"},
                "parent_tool_use_id": None,
                "session_id": "",
            },
        ],
        "--max-budget-usd",
        "0.000001",
    )
    responses = {
        o["response"]["request_id"]: o["response"] for o in out if o["type"] == "control_response"
    }
    assert responses["r1"] == {
        "subtype": "error",
        "request_id": "r1",
        "error": "Unsupported control request subtype: no_such_thing",
        "error_code": "unsupported_request",
    }
    assert responses["r2"]["error"] == "Server not found: x"
    assert responses["r3"]["subtype"] == "error" and "bogus" in responses["r3"]["error"]
    results = [o for o in out if o["type"] == "result"]
    assert len(results) == 1
    result = results[0]
    assert result["subtype"] == "error_max_budget_usd" and result["is_error"]
    assert result["errors"] and result["total_cost_usd"] > 0.000001
    assert "--max-budget-usd" in err
    # The Read was stopped: its tool_use still got exactly one result.
    tool_results = [
        b
        for o in out
        if o["type"] == "user"
        for b in o["message"]["content"]
        if b.get("type") == "tool_result"
    ]
    assert [b["tool_use_id"] for b in tool_results] == ["toolu_b1"]
    assert code == 1  # the last result was an error, as with Claude Code
    assert len(fake_api.bodies()) == 1  # the model was not asked again past the budget


def test_fallback_model_and_thinking_budget(
    fake_api: FakeAPI, sdk_env: dict[str, str], repo: Path
) -> None:
    from app.model.scenario import Block, Turn, text_block

    thought = turn_of([Block("thinking", ("let me see",)), text_block("answered by the fallback")])
    fake_api.enqueue(Turn(error=529, retry_after=0), thought)
    code, out, err = run_lines(
        repo,
        {**sdk_env, "LATHE_MAX_RETRIES": "0"},
        [{"type": "user", "message": {"role": "user", "content": "hi"}}],
        "--model",
        "claude-sonnet-4-5",
        "--fallback-model",
        "claude-haiku-4-5",
        "--max-thinking-tokens",
        "2048",
        "--agents",
        json.dumps(
            {
                "scout": {
                    "description": "Finds things.",
                    "prompt": "You scout.",
                    "tools": ["Glob"],
                },
                "nameless": {"prompt": "no description"},
            }
        ),
    )
    # --agents: a defined agent is an Agent type (listed in the init line and the Agent tool's
    # description); a malformed one is a warning naming it.
    init = next(o for o in out if o.get("subtype") == "init")
    assert "scout" in init["agents"] and "nameless" not in init["agents"]
    agent_tool = next(t for t in fake_api.bodies()[0]["tools"] if t["name"] == "Agent")
    assert "- scout: Finds things. (Tools: Glob)" in agent_tool["description"]
    assert "agent 'nameless': no `description`" in err
    result = next(o for o in out if o["type"] == "result")
    assert code == 0 and result["subtype"] == "success"
    assert result["result"] == "answered by the fallback"
    assert [b["model"] for b in fake_api.bodies(status=None)] == [
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
    ]
    assert "switching to claude-haiku-4-5" in err
    assert fake_api.bodies()[0]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    blocks = [o["message"]["content"][0] for o in out if o["type"] == "assistant"]
    assert blocks[0]["type"] == "thinking" and blocks[0]["signature"]
    assert blocks[1] == {"type": "text", "text": "answered by the fallback"}


def test_session_id_then_resume_into_a_fork(
    fake_api: FakeAPI, sdk_env: dict[str, str], repo: Path
) -> None:
    from app.transcript import find_session

    fake_api.enqueue(text_turn("first answer"), text_turn("second answer"))
    sid = "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b"
    hi = [{"type": "user", "message": {"role": "user", "content": "remember the word plum"}}]
    code, out, _ = run_lines(repo, sdk_env, hi, "--session-id", sid)
    assert code == 0 and next(o for o in out if o["type"] == "result")["session_id"] == sid
    original = find_session(sid, repo)
    assert original is not None
    before = original.read_bytes()

    again = [{"type": "user", "message": {"role": "user", "content": "which word?"}}]
    code, out, _ = run_lines(repo, sdk_env, again, f"--resume={sid}", "--fork-session")
    result = next(o for o in out if o["type"] == "result")
    assert code == 0 and result["result"] == "second answer" and result["session_id"] != sid
    # The fork carried the conversation on; the original session is as it was.
    sent = json.dumps(fake_api.bodies()[-1]["messages"])
    assert "remember the word plum" in sent and "first answer" in sent
    assert original.read_bytes() == before
    fork = find_session(result["session_id"], repo)
    assert fork is not None and "remember the word plum" in fork.read_text(encoding="utf-8")


def test_resume_session_at_forks_from_that_line_and_refuses_unknown_ones(
    fake_api: FakeAPI, sdk_env: dict[str, str], repo: Path
) -> None:
    from app.transcript import find_session

    fake_api.enqueue(text_turn("first answer"), text_turn("second answer"), text_turn("third"))
    sid = "7a1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b"
    for text in ("remember plum", "now forget it"):
        flags = ("--session-id", sid) if text == "remember plum" else (f"--resume={sid}",)
        line = [{"type": "user", "message": {"role": "user", "content": text}}]
        code, _, err = run_lines(repo, sdk_env, line, *flags)
        assert code == 0, err
    path = find_session(sid, repo)
    assert path is not None
    records = [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines()]
    first_answer = next(
        r["uuid"]
        for r in records
        if r.get("type") == "assistant" and "first answer" in json.dumps(r)
    )
    before = path.read_bytes()
    line = [{"type": "user", "message": {"role": "user", "content": "which word?"}}]
    at = f"--resume-session-at={first_answer}"
    code, _, err = run_lines(repo, sdk_env, line, f"--resume={sid}", at, "--fork-session")
    assert code == 0, err
    sent = json.dumps(fake_api.bodies()[-1]["messages"])
    assert "remember plum" in sent and "first answer" in sent
    assert "now forget it" not in sent and "second answer" not in sent
    assert path.read_bytes() == before  # the original session is left as it was
    # A line that is not there, and a cut without a new session, are refused before any request.
    asked = len(fake_api.bodies())
    code, _, err = run_lines(
        repo, sdk_env, line, f"--resume={sid}", "--resume-session-at=nope", "--fork-session"
    )
    assert code != 0 and "No message found with message.uuid of: nope" in err
    code, _, err = run_lines(repo, sdk_env, line, f"--resume={sid}", at)
    assert code != 0 and "--resume-session-at needs --fork-session" in err
    assert len(fake_api.bodies()) == asked


def test_a_policy_that_disables_bypass_makes_the_switch_an_error(
    fake_api: FakeAPI, sdk_env: dict[str, str], repo: Path, tmp_path: Path
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text("[permissions]\ndisable_bypass_mode = true\n", encoding="utf-8")
    env = {**sdk_env, "LATHE_POLICY_FILE": str(policy)}
    switch = {"subtype": "set_permission_mode", "mode": "bypassPermissions"}
    _, out, _ = run_lines(
        repo,
        env,
        [{"type": "control_request", "request_id": "m1", "request": switch}],
        "--allow-dangerously-skip-permissions",
    )
    response = next(o["response"] for o in out if o["type"] == "control_response")
    assert response["subtype"] == "error" and "policy" in response["error"], response
