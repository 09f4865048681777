"""What a hostile or careless SDK program sends, through the real SDK or raw stdin to the real lathe:
a switch to bypassPermissions it was not launched for, the mode "auto", an unknown resume id, a
line nested too deeply, lone surrogates on the way in and on the way out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from app.protocol.flags import BYPASS_REFUSED
from tests.e2e.sdk.conftest import ROOT, options
from tests.e2e.sdk.test_sdk_client import bash, tool_results, turn
from tests.fakeapi.server import FakeAPI


async def test_bypass_is_refused_unless_launched_for_it_by_control_and_by_can_use_tool(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import ClaudeSDKClient, PermissionResultAllow, PermissionUpdate

    asked: list[str] = []
    inputs: list[dict[str, Any]] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        asked.append(tool_input.get("command", ""))
        inputs.append(dict(tool_input))
        # Allowing this one call while asking for bypassPermissions from now on.
        return PermissionResultAllow(
            updated_permissions=[PermissionUpdate(type="setMode", mode="bypassPermissions")]
        )

    fake_api.enqueue(
        bash("touch one", "toolu_b1"),
        bash("touch two", "toolu_b2"),
        text_turn("done"),
    )
    opts = options(lathe_cli, repo, permission_mode="default", can_use_tool=can_use_tool)
    async with ClaudeSDKClient(opts) as client:
        with pytest.raises(Exception, match="not launched with --dangerously-skip-permissions"):
            await client.set_permission_mode("bypassPermissions")
        messages = await turn(client, "make files")
    # Still asked for the second write: neither the control request nor setMode switched modes.
    assert asked == ["touch one", "touch two"]
    # The model's input as it sent it, without lathe's defaults (run_in_background) added.
    assert inputs[0] == {"command": "touch one"}
    assert messages[0].data["permissionMode"] == "default"


async def test_bypass_allowed_when_launched_with_allow_dangerously_skip_permissions(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import ClaudeSDKClient, ResultMessage

    asked: list[str] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        asked.append(name)
        raise AssertionError("bypassPermissions never asks")

    fake_api.enqueue(bash("touch bypassed", "toolu_c1"), text_turn("done"))
    opts = options(
        lathe_cli,
        repo,
        can_use_tool=can_use_tool,
        extra_args={"allow-dangerously-skip-permissions": None},
    )
    async with ClaudeSDKClient(opts) as client:
        await client.set_permission_mode("bypassPermissions")
        messages = await turn(client, "make a file")
    assert asked == [] and (repo / "bypassed").exists()
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"


async def test_auto_mode_runs_as_default_and_still_asks(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import ClaudeSDKClient, PermissionResultDeny, ResultMessage

    asked: list[str] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        asked.append(tool_input.get("command", ""))
        return PermissionResultDeny(message="no")

    fake_api.enqueue(bash("touch auto", "toolu_u1"), text_turn("not done"))
    opts = options(lathe_cli, repo, permission_mode="auto", can_use_tool=can_use_tool)
    async with ClaudeSDKClient(opts) as client:
        await client.set_permission_mode("auto")
        messages = await turn(client, "make a file")
    assert messages[0].data["permissionMode"] == "default"
    assert asked == ["touch auto"] and not (repo / "auto").exists()
    assert isinstance(messages[-1], ResultMessage)


async def test_resume_of_an_unknown_session_raises_the_sdks_result_error(
    sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import ResultError, query

    unknown = "00000000-0000-4000-8000-000000000000"
    with pytest.raises(ResultError, match=f"No conversation found with session ID: {unknown}"):
        async for _ in query(prompt="hi", options=options(lathe_cli, repo, resume=unknown)):
            pass


async def test_max_turns_and_budget_end_with_claude_codes_texts(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import ResultError, ResultMessage, query

    fake_api.enqueue(bash("true", "toolu_t1"), bash("true", "toolu_t2"), text_turn("never"))
    seen: list[Any] = []
    with pytest.raises(ResultError, match=r"Reached maximum number of turns \(2\)"):
        opts = options(lathe_cli, repo, max_turns=2, permission_mode="bypassPermissions")
        async for message in query(prompt="loop", options=opts):
            seen.append(message)
    result = seen[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_max_turns"
    assert result.num_turns == 3  # Claude Code counts the turn it did not start

    fake_api.enqueue(text_turn("costly"))
    with pytest.raises(ResultError, match=r"Reached maximum budget \(\$1e-06\)"):
        async for _ in query(prompt="hi", options=options(lathe_cli, repo, max_budget_usd=1e-6)):
            pass


async def test_an_sdk_mcp_tool_answering_a_lone_surrogate_keeps_the_session_readable(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import ClaudeSDKClient, ResultMessage, create_sdk_mcp_server, tool

    @tool("name", "a file name as the file system gave it", {})
    async def name(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "report-\udcff.txt"}]}

    fake_api.enqueue(
        turn_of([tool_use_block("mcp__fs__name", {}, "toolu_s1")]),
        text_turn("first"),
        text_turn("second"),
    )
    server = create_sdk_mcp_server("fs", "1.0.0", tools=[name])
    opts = options(lathe_cli, repo, mcp_servers={"fs": server}, allowed_tools=["mcp__fs__name"])
    async with ClaudeSDKClient(opts) as client:
        first = await turn(client, "name it")
        second = await turn(client, "again")
    result = next(b for b in tool_results(first) if b.tool_use_id == "toolu_s1")
    assert "report-\ufffd.txt" in str(result.content)
    assert isinstance(first[-1], ResultMessage) and first[-1].result == "first"
    assert isinstance(second[-1], ResultMessage) and second[-1].result == "second"


def raw_run(cwd: Path, env: dict[str, str], stdin: str, *flags: str) -> tuple[int, bytes, str]:
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
        input=stdin.encode(),
        capture_output=True,
        timeout=60,
    )
    return done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")


def lines(out: bytes) -> list[dict[str, Any]]:
    # strict: one byte that is not UTF-8 is what kills the SDK's reader
    return [json.loads(line) for line in out.decode("utf-8").splitlines()]


def user(content: Any) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": content}}) + "\n"


def test_raw_deep_line_and_lone_surrogates_then_the_session_goes_on(
    fake_api: FakeAPI, sdk_env: dict[str, str], repo: Path
) -> None:
    depth = 5000
    deep = (
        '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"x","deep":'
        + "[" * depth
        + "]" * depth
        + "}]}}\n"
    )
    # A file name that is not UTF-8: Glob's answer (and the line with it) names it with U+FFFD.
    os.close(os.open(os.fsencode(repo) + b"/report-\xff.txt", os.O_CREAT | os.O_WRONLY))
    fake_api.enqueue(
        text_turn("answered the surrogate"),
        turn_of([tool_use_block("Glob", {"pattern": "*.txt"}, "toolu_g1")]),
        text_turn("globbed"),
        # The API's JSON may hold a `\udcff` escape too: the assistant line must still be UTF-8.
        text_turn("the model says \udcff"),
    )
    stdin = (
        deep
        + user("lone \\ud800 surrogate").replace("\\\\ud800", "\\ud800")
        + user("glob")
        + user("say it")
    )
    code, out, err = raw_run(repo, sdk_env, stdin)
    got = lines(out)
    results = [o for o in got if o["type"] == "result"]
    assert "line 1 is nested too deeply" in err
    assert [r["result"] for r in results] == [
        "answered the surrogate",
        "globbed",
        "the model says \ufffd",
    ]
    # The surrogate reached the model as U+FFFD, not as an encoding error.
    first = fake_api.bodies()[0]["messages"][0]["content"]
    assert "lone \ufffd surrogate" in json.dumps(first, ensure_ascii=False)
    globbed = next(
        b
        for o in got
        if o["type"] == "user"
        for b in o["message"]["content"]
        if isinstance(b, dict) and b.get("tool_use_id") == "toolu_g1"
    )
    assert "report-\ufffd.txt" in json.dumps(globbed, ensure_ascii=False)
    assert code == 0


def test_raw_control_errors_as_claude_code(
    fake_api: FakeAPI, sdk_env: dict[str, str], repo: Path
) -> None:
    stdin = "".join(
        json.dumps({"type": "control_request", "request_id": rid, "request": req}) + "\n"
        for rid, req in [
            ("m1", {"subtype": "set_model", "model": 7}),
            ("p1", {"subtype": "set_permission_mode", "mode": "bogus"}),
            ("p2", {"subtype": "set_permission_mode", "mode": "bypassPermissions"}),
            ("p3", {"subtype": "set_permission_mode", "mode": "auto"}),
        ]
    )
    code, out, _ = raw_run(repo, sdk_env, stdin)
    answers = {
        o["response"]["request_id"]: o["response"]
        for o in lines(out)
        if o["type"] == "control_response"
    }
    assert answers["m1"]["error"] == "set_model: model must be a string"
    assert answers["p1"]["subtype"] == "error" and answers["p1"]["error_code"] == "invalid_mode"
    assert answers["p2"]["error"] == BYPASS_REFUSED
    assert answers["p3"] == {
        "subtype": "success",
        "request_id": "p3",
        "response": {"mode": "default"},
    }
    assert code == 0
