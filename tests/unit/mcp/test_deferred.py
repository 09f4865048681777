"""Deferred loading: which tool definitions are sent and which only by name."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from app.mcp.bridge import McpTool
from app.mcp.deferred import deferred_tools_text, loaded_tool_names, split_deferred
from tools.abort import AbortSignal
from tools.registry import assemble_tool_pool, get_all_base_tools
from tools.tool_search import ToolSearchTool


class _NoServer:
    server_name = "big"

    async def call_tool(
        self, tool: str, arguments: dict[str, Any], abort: AbortSignal
    ) -> types.CallToolResult:
        raise AssertionError


def _mcp_tools(n: int, pinned: int = 0) -> list[McpTool]:
    tools = []
    for i in range(n):
        meta = {"anthropic/alwaysLoad": True} if i < pinned else None
        spec = types.Tool(name=f"tool{i:02d}", input_schema={"type": "object"}, _meta=meta)
        tools.append(McpTool(_NoServer(), spec))
    return tools


def test_small_pool_sends_everything() -> None:
    pool = assemble_tool_pool(get_all_base_tools(), _mcp_tools(5))
    split = split_deferred(pool.tools)
    assert split.deferred == []
    assert [d["name"] for d in split.sent] == pool.names
    assert deferred_tools_text(split.deferred) == ""


def test_large_pool_defers_mcp_tools_but_keeps_builtins_and_pinned() -> None:
    pool = assemble_tool_pool(get_all_base_tools(), _mcp_tools(45, pinned=2))
    split = split_deferred(pool.tools, threshold=40)
    builtins = [t.name for t in get_all_base_tools()]
    sent = [d["name"] for d in split.sent]
    assert sorted(builtins) == sent[: len(builtins)]  # the cached prefix is unchanged
    assert sent[len(builtins) :] == ["mcp__big__tool00", "mcp__big__tool01"]
    assert len(split.deferred) == 43 and "mcp__big__tool44" in split.deferred
    assert not split.schema_sent("mcp__big__tool10") and split.schema_sent("Read")
    text = deferred_tools_text(split.deferred)
    assert "<available-deferred-tools>\nmcp__big__tool02\n" in text
    assert "ToolSearch" in text


def test_nothing_is_deferred_without_tool_search() -> None:
    base = [t for t in get_all_base_tools() if t.name != "ToolSearch"]
    pool = assemble_tool_pool(base, _mcp_tools(60))
    assert split_deferred(pool.tools).deferred == []


def test_big_definitions_are_deferred_even_in_a_small_pool() -> None:
    pool = assemble_tool_pool(get_all_base_tools(), _mcp_tools(3))
    split = split_deferred(pool.tools, char_budget=10)
    assert len(split.deferred) == 3


async def test_tools_loaded_by_tool_search_are_sent_again() -> None:
    tools = _mcp_tools(45)
    pool = assemble_tool_pool(get_all_base_tools(), tools)
    search = ToolSearchTool()
    from tools.base import ToolContext

    context = ToolContext(cwd="/", project_dir="/", working_dirs=("/",), tools=pool.tools)
    parsed = search.parse_input({"query": "select:mcp__big__tool07,mcp__big__tool09"})
    result = await search.call(parsed, context, None, {}, lambda p: None)  # type: ignore[arg-type]
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": [search.to_result_block(result.data, "toolu_1")]},
    ]
    loaded = loaded_tool_names(messages)
    assert loaded == {"mcp__big__tool07", "mcp__big__tool09"}
    split = split_deferred(pool.tools, loaded=loaded)
    sent = {d["name"] for d in split.sent}
    assert {"mcp__big__tool07", "mcp__big__tool09"} <= sent
    assert "mcp__big__tool07" not in split.deferred
