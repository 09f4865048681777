"""ToolSearch over deferred tools: select:, keywords with search_hint, +word."""

from __future__ import annotations

import json
from typing import Any

from tools.base import JsonSchemaTool, Tool, ToolContext
from tools.tool_search import ToolSearchTool, name_parts


def deferred(name: str, hint: str = "", description: str = "") -> JsonSchemaTool:
    tool = JsonSchemaTool(name, description or f"The {name} tool.", {"type": "object"})
    tool.should_defer = True
    tool.search_hint = hint
    return tool


TOOLS: tuple[Tool[Any], ...] = (
    deferred("mcp__slack__send_message", "post a chat message to a channel"),
    deferred("mcp__slack__list_channels", "channels of a workspace"),
    deferred("mcp__github__create_issue", "open a bug report ticket"),
    deferred("NotebookEdit", "jupyter ipynb cells"),
    ToolSearchTool(),
)


async def search(query: str, **extra: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    ctx = ToolContext(cwd="/", project_dir="/", working_dirs=("/",), tools=TOOLS)
    tool = ToolSearchTool()
    parsed = tool.parse_input({"query": query, **extra})
    assert (await tool.validate_input(parsed, ctx)).ok
    result = await tool.call(parsed, ctx, None, {}, lambda p: None)  # type: ignore[arg-type]
    blocks = tool.to_result_content(result.data)
    assert isinstance(blocks, list)
    return result.data, blocks


async def test_select_exact_names_with_full_definitions() -> None:
    data, blocks = await search("select:NotebookEdit,mcp__github__create_issue,Nope")
    assert data["matches"] == ["NotebookEdit", "mcp__github__create_issue"]
    assert data["missing"] == ["Nope"]
    loaded = [json.loads(b["text"][len("<function>") : -len("</function>")]) for b in blocks[1:]]
    assert loaded == [t.api_definition() for t in (TOOLS[3], TOOLS[2])]
    assert "Not found: Nope" in blocks[0]["text"]


async def test_keywords_rank_by_name_then_hint() -> None:
    data, _ = await search("slack message")
    assert data["matches"][0] == "mcp__slack__send_message"
    assert set(data["matches"]) == {"mcp__slack__send_message", "mcp__slack__list_channels"}
    data, _ = await search("jupyter")
    assert data["matches"] == ["NotebookEdit"]
    data, _ = await search("ticket")
    assert data["matches"] == ["mcp__github__create_issue"]


async def test_required_word_and_limit() -> None:
    data, _ = await search("+slack channel")
    assert data["matches"][0] == "mcp__slack__list_channels"
    assert all("slack" in m for m in data["matches"])
    data, _ = await search("+slack", max_results=1)
    assert len(data["matches"]) == 1
    data, blocks = await search("+nothing message")
    assert data["matches"] == [] and "No tools matched" in blocks[0]["text"]


async def test_only_deferred_tools_are_searched() -> None:
    data, _ = await search("search discover deferred")
    assert "ToolSearch" not in data["matches"]


def test_name_parts() -> None:
    assert name_parts("mcp__slack__send_message") == ["mcp", "slack", "send", "message"]
    assert name_parts("NotebookEdit") == ["notebook", "edit"]
    assert name_parts("HTTPFetch") == ["http", "fetch"]
