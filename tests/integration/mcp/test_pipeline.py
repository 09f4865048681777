"""MCP tools through the real call pipeline: results, errors, permissions, hooks, aborts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.execution.interfaces import DenyingPrompter, HookToolCall, NoHooks
from app.execution.outcome import CallOutcome
from app.execution.pipeline import PipelineDeps, run_tool_use
from app.hooks.results import HookUpdatedMcpOutput, PostToolHookItem
from app.mcp import McpManager, McpOptions
from app.mcp.config import ServerSpec
from app.permissions import PermissionContext, RuleDecider, parse_rule
from tests.integration.mcp.conftest import new_marker, server_pids, stdio_spec
from tools.abort import AbortController
from tools.base import Tool, ToolContext
from tools.registry import assemble_tool_pool, get_all_base_tools, get_tools


@pytest.fixture
async def manager() -> AsyncIterator[McpManager]:
    marker = new_marker()
    m = McpManager([stdio_spec(marker=marker)], McpOptions(connect_timeout=8, call_timeout=1.5))
    await m.start()
    assert m.status() == [{"name": "demo", "status": "connected"}], m.servers()
    yield m
    await m.close()
    assert server_pids(marker) == []


def _context(tmp_path: Path, tools: tuple[Tool[Any], ...] = ()) -> ToolContext:
    return ToolContext(
        cwd=str(tmp_path),
        project_dir=str(tmp_path),
        working_dirs=(str(tmp_path),),
        session_dir=str(tmp_path / "session"),
        tools=tools,
    )


def _decider(
    tmp_path: Path, *, allow: tuple[str, ...] = (), deny: tuple[str, ...] = ()
) -> RuleDecider:
    return RuleDecider(
        PermissionContext(
            allow=tuple(parse_rule(r, "allow", "project") for r in allow),
            deny=tuple(parse_rule(r, "deny", "project") for r in deny),
            project_dir=str(tmp_path),
            working_dirs=(str(tmp_path),),
        )
    )


async def _run(
    name: str,
    args: dict[str, Any],
    tools: list[Tool[Any]],
    tmp_path: Path,
    decider: RuleDecider | None = None,
    **deps: Any,
) -> CallOutcome:
    block = {"type": "tool_use", "id": "toolu_1", "name": name, "input": args}
    pipeline = PipelineDeps(
        tools=tools,
        decider=decider or _decider(tmp_path),
        prompter=DenyingPrompter(),
        **deps,
    )
    return await run_tool_use(block, {}, _context(tmp_path, tuple(tools)), pipeline, lambda p: None)


async def test_read_only_tool_runs_and_returns_text(manager: McpManager, tmp_path: Path) -> None:
    # readOnlyHint is the server's own word: it still asks (here: refused), as in Claude Code.
    asked = await _run("mcp__demo__echo", {"text": "hi"}, manager.tools(), tmp_path)
    assert asked.is_error and "echo: hi" not in str(asked.result_block)
    allow = _decider(tmp_path, allow=("mcp__demo__echo",))
    out = await _run("mcp__demo__echo", {"text": "hi"}, manager.tools(), tmp_path, allow)
    assert not out.is_error, out.result_block
    assert out.result_block["content"] == [{"type": "text", "text": "echo: hi"}]


async def test_image_result_becomes_an_image_block(manager: McpManager, tmp_path: Path) -> None:
    allow = _decider(tmp_path, allow=("mcp__demo__picture",))
    out = await _run("mcp__demo__picture", {}, manager.tools(), tmp_path, allow)
    assert not out.is_error, out.result_block
    text, image = out.result_block["content"]
    assert text == {"type": "text", "text": "a picture:"}
    assert image["type"] == "image"
    assert image["source"]["media_type"] == "image/png"
    assert image["source"]["data"].startswith("iVBORw0KGgo")


async def test_server_error_is_an_error_result(manager: McpManager, tmp_path: Path) -> None:
    allow = _decider(tmp_path, allow=("mcp__demo__fail",))
    out = await _run("mcp__demo__fail", {"message": "boom"}, manager.tools(), tmp_path, allow)
    assert out.is_error and out.ran
    assert "boom" in out.result_block["content"]


async def test_schema_is_validated_before_anything_runs(
    manager: McpManager, tmp_path: Path
) -> None:
    out = await _run("mcp__demo__echo", {"text": 3}, manager.tools(), tmp_path)
    assert out.is_error and not out.ran
    content = out.result_block["content"]
    assert content.startswith("<tool_use_error>InputValidationError")
    assert "text: 3 is not of type 'string'" in content
    deferred = await _run(
        "mcp__demo__echo", {}, manager.tools(), tmp_path, schema_sent=lambda name: False
    )
    assert "ToolSearch" in deferred.result_block["content"]


async def test_deny_rule_for_the_server_removes_its_tools(
    manager: McpManager, tmp_path: Path
) -> None:
    decider = _decider(tmp_path, deny=("mcp__demo",))
    builtins = get_tools(decider, base_tools=get_all_base_tools())
    pool = assemble_tool_pool(builtins, manager.tools(), decider)
    assert not [n for n in pool.names if n.startswith("mcp__")]
    out = await _run("mcp__demo__echo", {"text": "x"}, list(pool.tools), tmp_path, decider)
    assert out.result_block["content"] == (
        "<tool_use_error>Error: No such tool available: mcp__demo__echo</tool_use_error>"
    )


async def test_deny_rule_for_one_tool_keeps_the_others(manager: McpManager, tmp_path: Path) -> None:
    decider = _decider(tmp_path, deny=("mcp__demo__write_file",))
    pool = assemble_tool_pool([], manager.tools(), decider)
    assert "mcp__demo__write_file" not in pool.names
    assert "mcp__demo__echo" in pool.names
    # Even if the model names the tool anyway (e.g. an old pool), stage 7 denies it.
    target = tmp_path / "denied.txt"
    args = {"path": str(target), "text": "x"}
    out = await _run("mcp__demo__write_file", args, manager.tools(), tmp_path, decider)
    assert out.is_error and not out.ran and not target.exists()


async def test_allow_rule_lets_a_writing_tool_run_headless(
    manager: McpManager, tmp_path: Path
) -> None:
    target = tmp_path / "out.txt"
    args = {"path": str(target), "text": "written by MCP"}
    denied = await _run("mcp__demo__write_file", args, manager.tools(), tmp_path)
    assert denied.is_error and denied.permission_denial is not None
    assert "lathe -p cannot ask" in denied.result_block["content"]
    assert not target.exists()
    for rule in ("mcp__demo__write_file", "mcp__demo__*", "mcp__demo"):
        target.unlink(missing_ok=True)
        allowed = await _run(
            "mcp__demo__write_file",
            args,
            manager.tools(),
            tmp_path,
            _decider(tmp_path, allow=(rule,)),
        )
        assert not allowed.is_error, (rule, allowed.result_block)
        assert target.read_text() == "written by MCP"


class _RewritingHooks(NoHooks):
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def post_tool_use(
        self, call: HookToolCall, response: Any, context: ToolContext
    ) -> list[PostToolHookItem]:
        self.seen.append((call.tool_name, call.is_mcp, response))
        return [HookUpdatedMcpOutput("[redacted by hook]")]


async def test_post_hook_rewrites_output_before_it_is_recorded(
    manager: McpManager, tmp_path: Path
) -> None:
    hooks = _RewritingHooks()
    allow = _decider(tmp_path, allow=("mcp__demo__echo",))
    out = await _run(
        "mcp__demo__echo", {"text": "secret"}, manager.tools(), tmp_path, allow, hooks=hooks
    )
    assert hooks.seen == [("mcp__demo__echo", True, [{"type": "text", "text": "echo: secret"}])]
    assert out.result_block["content"] == "[redacted by hook]"
    assert "secret" not in json.dumps(out.result_block)


async def test_server_dying_mid_call_is_an_error_and_reconnect_recovers(
    manager: McpManager, tmp_path: Path
) -> None:
    tools = manager.tools()
    allow = _decider(tmp_path, allow=("mcp__demo",))
    out = await _run("mcp__demo__die", {}, tools, tmp_path, allow)
    assert out.is_error
    assert "closed the connection" in out.result_block["content"]
    status = manager.server("demo")
    assert status is not None and status.status == "failed"
    assert manager.tools() == []
    # The session goes on: the old tool objects answer with a clear error.
    again = await _run("mcp__demo__echo", {"text": "x"}, tools, tmp_path, allow)
    assert again.is_error and "/mcp" in again.result_block["content"]
    info = await manager.reconnect("demo")
    assert info.status == "connected"
    fresh = await _run("mcp__demo__echo", {"text": "back"}, manager.tools(), tmp_path, allow)
    assert fresh.result_block["content"] == [{"type": "text", "text": "echo: back"}]


async def test_hanging_call_times_out_and_the_server_stays_usable(
    manager: McpManager, tmp_path: Path
) -> None:
    allow = _decider(tmp_path, allow=("mcp__demo",))
    out = await _run("mcp__demo__hang", {}, manager.tools(), tmp_path, allow)
    assert out.is_error
    assert "did not answer the call to hang within 1.5 s" in out.result_block["content"]
    ok = await _run("mcp__demo__echo", {"text": "still here"}, manager.tools(), tmp_path, allow)
    assert ok.result_block["content"] == [{"type": "text", "text": "echo: still here"}]


async def test_abort_cancels_a_running_call(tmp_path: Path) -> None:
    marker = new_marker()
    options = McpOptions(connect_timeout=8, call_timeout=60)
    async with McpManager([stdio_spec(marker=marker)], options) as manager:
        await manager.start()
        tool = next(t for t in manager.tools() if t.name == "mcp__demo__hang")
        controller = AbortController()
        context = _context(tmp_path).with_call("toolu_1", controller.signal)
        pipeline = PipelineDeps(tools=[tool], decider=_decider(tmp_path, allow=("mcp__demo",)))
        block = {"type": "tool_use", "id": "toolu_1", "name": tool.name, "input": {}}
        task = asyncio.create_task(run_tool_use(block, {}, context, pipeline, lambda p: None))
        await asyncio.sleep(0.3)
        controller.abort("user_interrupt")
        out = await asyncio.wait_for(task, 10)
        assert out.is_error and "interrupted" in out.result_block["content"]
        echo = next(t for t in manager.tools() if t.name == "mcp__demo__echo")
        allow = _decider(tmp_path, allow=("mcp__demo",))
        ok = await _run(echo.name, {"text": "after"}, [echo], tmp_path, allow)
        assert ok.result_block["content"] == [{"type": "text", "text": "echo: after"}]
    assert server_pids(marker) == []


async def test_environment_reaches_the_server(tmp_path: Path) -> None:
    spec = stdio_spec(marker=new_marker(), DEMO_TOKEN="tok-123")
    async with McpManager([spec], McpOptions(connect_timeout=8, call_timeout=5)) as manager:
        await manager.start()
        allow = _decider(tmp_path, allow=("mcp__demo__token",))
        out = await _run("mcp__demo__token", {}, manager.tools(), tmp_path, allow)
        assert out.result_block["content"] == [{"type": "text", "text": "tok-123"}]


async def test_http_tools_run_through_the_pipeline(http_server: str, tmp_path: Path) -> None:
    spec = ServerSpec("remote", "http", "test", url=http_server)
    async with McpManager([spec], McpOptions(connect_timeout=8, call_timeout=1.5)) as manager:
        await manager.start()
        tools = manager.tools()
        allow = _decider(tmp_path, allow=("mcp__remote__echo", "mcp__remote__hang"))
        out = await _run("mcp__remote__echo", {"text": "over http"}, tools, tmp_path, allow)
        assert out.result_block["content"] == [{"type": "text", "text": "echo: over http"}]
        hung = await _run("mcp__remote__hang", {}, tools, tmp_path, allow)
        assert hung.is_error and "did not answer" in hung.result_block["content"]
