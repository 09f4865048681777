"""`ClaudeSDKClient` against lathe: permissions decided by the SDK's callback, SDK hooks, control
requests, interrupt, several queries on one client, an SDK MCP server's tool."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.sdk.conftest import options
from tests.fakeapi.server import FakeAPI


async def turn(client: Any, prompt: str) -> list[Any]:
    await client.query(prompt)
    return [m async for m in client.receive_response()]


def tool_results(messages: list[Any]) -> list[Any]:
    from claude_agent_sdk import ToolResultBlock, UserMessage

    return [
        b
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for b in m.content
        if isinstance(b, ToolResultBlock)
    ]


def bash(command: str, block_id: str) -> Any:
    return turn_of([tool_use_block("Bash", {"command": command}, block_id)])


async def test_can_use_tool_allow_rewrites_input_and_adds_a_rule_then_deny(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import (
        ClaudeSDKClient,
        PermissionResultAllow,
        PermissionResultDeny,
        PermissionUpdate,
        ResultMessage,
    )
    from claude_agent_sdk.types import PermissionRuleValue

    asked: list[tuple[str, dict[str, Any], Any]] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        asked.append((name, dict(tool_input), context))
        command = tool_input.get("command", "")
        if command.startswith("touch asked"):
            rule = PermissionRuleValue(tool_name="Bash", rule_content="touch again")
            return PermissionResultAllow(
                updated_input={**tool_input, "command": "touch rewritten"},
                updated_permissions=[
                    PermissionUpdate(
                        type="addRules", rules=[rule], behavior="allow", destination="session"
                    )
                ],
            )
        return PermissionResultDeny(message="not this one, says the SDK")

    fake_api.enqueue(
        bash("touch asked", "toolu_a1"),
        bash("touch again", "toolu_a2"),
        text_turn("both done"),
        bash("touch denied", "toolu_d1"),
        text_turn("ok, not done"),
    )
    async with ClaudeSDKClient(options(lathe_cli, repo, can_use_tool=can_use_tool)) as client:
        first = await turn(client, "make files")
        second = await turn(client, "make another")

    # The callback saw Claude Code's request: the tool, its input, its id and suggestions.
    name, tool_input, context = asked[0]
    assert name == "Bash" and tool_input["command"] == "touch asked"
    assert context.tool_use_id == "toolu_a1" and context.suggestions
    # updatedInput ran instead of the model's input; the session rule let "touch again" through.
    assert (repo / "rewritten").exists() and not (repo / "asked").exists()
    assert (repo / "again").exists()
    assert [a[1]["command"] for a in asked] == ["touch asked", "touch denied"]
    assert isinstance(first[-1], ResultMessage) and first[-1].result == "both done"
    # The deny: its message is what the model is told, the file is never made.
    denied = [b for b in tool_results(second) if b.tool_use_id == "toolu_d1"]
    assert denied and denied[0].is_error and "not this one, says the SDK" in str(denied[0].content)
    assert not (repo / "denied").exists()
    assert isinstance(second[-1], ResultMessage) and second[-1].subtype == "success"


async def test_sdk_hooks_and_control_requests(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import ClaudeSDKClient, HookMatcher, ResultMessage

    seen: list[tuple[str, str]] = []

    async def pre(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        seen.append((hook_input["hook_event_name"], hook_input["tool_input"].get("command", "")))
        if "forbidden" in hook_input["tool_input"].get("command", ""):
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "the SDK hook blocks forbidden commands",
                }
            }
        return {}

    async def post(hook_input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        seen.append((hook_input["hook_event_name"], tool_use_id or ""))
        return {}

    hooks = {
        "PreToolUse": [HookMatcher(matcher="Bash", hooks=[pre])],
        "PostToolUse": [HookMatcher(matcher="Bash", hooks=[post])],
    }
    fake_api.enqueue(
        bash("echo forbidden", "toolu_h1"),
        bash("echo fine", "toolu_h2"),
        text_turn("hooks done"),
        turn_of(
            [tool_use_block("Write", {"file_path": str(repo / "w.txt"), "content": "w"}, "toolu_w")]
        ),
        text_turn("written"),
    )
    opts = options(lathe_cli, repo, hooks=hooks, allowed_tools=["Bash(echo:*)"])
    async with ClaudeSDKClient(opts) as client:
        first = await turn(client, "run things")
        blocked = next(b for b in tool_results(first) if b.tool_use_id == "toolu_h1")
        assert blocked.is_error and "blocks forbidden commands" in str(blocked.content)
        ran = next(b for b in tool_results(first) if b.tool_use_id == "toolu_h2")
        assert not ran.is_error and "fine" in str(ran.content)

        # Headless without can_use_tool a Write would be denied; acceptEdits lets it through.
        await client.set_permission_mode("acceptEdits")
        written = await turn(client, "write w.txt")
        assert (repo / "w.txt").read_text(encoding="utf-8") == "w"
        assert isinstance(written[-1], ResultMessage) and written[-1].subtype == "success"

        status = await client.get_mcp_status()
        assert status == {"mcpServers": []}
        usage = await client.get_context_usage()
        assert usage["totalTokens"] > 0 and usage["rawMaxTokens"] > 0 and usage["categories"]
        await client.set_model("claude-haiku-4-5")
        try:
            await client.rewind_files("no-such-message")
        except Exception as exc:
            assert "File rewinding is not enabled." in str(exc)
        else:
            raise AssertionError("rewind_files must be an error response")
    assert seen == [
        ("PreToolUse", "echo forbidden"),
        ("PreToolUse", "echo fine"),
        ("PostToolUse", "toolu_h2"),
    ]


async def test_interrupt_ends_the_turn_with_a_result_and_the_client_goes_on(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import (
        AssistantMessage,
        ClaudeSDKClient,
        ResultMessage,
        StreamEvent,
        TextBlock,
        UserMessage,
    )

    slow = text_turn("one two three four five six seven eight nine ten " * 4, delay=0.3)
    fake_api.enqueue(slow, text_turn("after the interrupt"))
    async with ClaudeSDKClient(options(lathe_cli, repo, include_partial_messages=True)) as client:
        await client.query("talk slowly")
        messages: list[Any] = []
        interrupted = False
        async for message in client.receive_response():
            messages.append(message)
            delta = (
                isinstance(message, StreamEvent)
                and message.event.get("type") == "content_block_delta"
            )
            if delta and not interrupted:
                interrupted = True
                await client.interrupt()
        result = messages[-1]
        assert isinstance(result, ResultMessage)
        assert result.subtype == "error_during_execution" and result.is_error
        assert result.terminal_reason == "aborted_streaming"
        assert result.result is None  # as Claude Code: no result text after an interrupt
        # Claude Code's shape (2.1.332 against the fake): the answer so far, then the marker
        # as a user message of its own, then the result with its diagnostic.
        cut, marker = messages[-3], messages[-2]
        assert isinstance(cut, AssistantMessage) and isinstance(cut.content[0], TextBlock)
        assert isinstance(marker, UserMessage)
        assert [b.text for b in marker.content] == ["[Request interrupted by user]"]  # type: ignore[union-attr]
        assert result.errors and result.errors[0].startswith("[ede_diagnostic] result_type=user")
        again = await asyncio.wait_for(turn(client, "go on"), 60)
        assert isinstance(again[-1], ResultMessage) and again[-1].result == "after the interrupt"


async def test_an_sdk_mcp_server_tool_runs_in_the_sdk_program(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import ClaudeSDKClient, ResultMessage, create_sdk_mcp_server, tool

    calls: list[dict[str, Any]] = []

    @tool("add", "Add two numbers", {"a": float, "b": float})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": f"sum={args['a'] + args['b']:g}"}]}

    server = create_sdk_mcp_server("calc", "1.0.0", tools=[add])
    fake_api.enqueue(
        turn_of([tool_use_block("mcp__calc__add", {"a": 2, "b": 3}, "toolu_m1")]),
        text_turn("2 + 3 = 5"),
    )
    opts = options(lathe_cli, repo, mcp_servers={"calc": server}, allowed_tools=["mcp__calc__add"])
    async with ClaudeSDKClient(opts) as client:
        messages = await turn(client, "add 2 and 3")
        status = await client.get_mcp_status()
    assert calls == [{"a": 2, "b": 3}]
    result = next(b for b in tool_results(messages) if b.tool_use_id == "toolu_m1")
    assert not result.is_error and "sum=5" in str(result.content)
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "2 + 3 = 5"
    entry = status["mcpServers"][0]
    assert entry["name"] == "calc" and entry["status"] == "connected"
    assert [t["name"] for t in entry["tools"]] == ["add"]
    init = messages[0]
    assert "mcp__calc__add" in init.data["tools"]
