"""The bridge from MCP tool descriptions and results to Tools and tool_result blocks."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest

from app.mcp.bridge import McpTool, bridge_tools, mcp_tool_name, normalize_name, result_blocks
from tools.abort import AbortSignal
from tools.base import InputError


class _NoServer:
    server_name = "my server.v2"

    async def call_tool(
        self, tool: str, arguments: dict[str, Any], abort: AbortSignal
    ) -> types.CallToolResult:
        raise AssertionError("not called in these tests")


def _tool(name: str = "t", schema: Any = None, **kw: Any) -> types.Tool:
    return types.Tool(name=name, input_schema=schema or {"type": "object"}, **kw)


def test_names_are_normalised_and_bounded() -> None:
    assert normalize_name("a.b c/d-e_f") == "a_b_c_d-e_f"
    assert mcp_tool_name("my server.v2", "get.thing") == "mcp__my_server_v2__get_thing"
    long_a = mcp_tool_name("server", "x" * 80 + "a")
    long_b = mcp_tool_name("server", "x" * 80 + "b")
    assert len(long_a) == 64 and len(long_b) == 64 and long_a != long_b
    assert long_a == mcp_tool_name("server", "x" * 80 + "a")


def test_annotations_and_meta_become_declarations() -> None:
    caller = _NoServer()
    ro = McpTool(caller, _tool("read", annotations=types.ToolAnnotations(read_only_hint=True)))
    assert ro.name == "mcp__my_server_v2__read"
    assert ro.is_read_only({}) and ro.is_concurrency_safe({}) and not ro.is_destructive({})
    additive = McpTool(
        caller, _tool("add", annotations=types.ToolAnnotations(destructive_hint=False))
    )
    assert not additive.is_read_only({}) and not additive.is_destructive({})
    plain = McpTool(caller, _tool("plain"))
    assert not plain.is_read_only({}) and not plain.is_concurrency_safe({})
    assert plain.is_destructive({})  # the MCP default for a tool that is not read-only
    assert plain.should_defer and not plain.always_load and plain.is_mcp
    assert plain.permission_subject({}) is None
    pinned = McpTool(caller, _tool("pin", _meta={"anthropic/alwaysLoad": True}))
    assert pinned.always_load and not pinned.should_defer
    assert plain.user_facing_name() == "my server.v2 - plain (MCP)"


def test_input_is_validated_with_the_servers_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 1}},
        "required": ["n"],
    }
    tool = McpTool(_NoServer(), _tool("count", schema))
    assert tool.parse_input({"n": 2}) == {"n": 2}
    with pytest.raises(InputError) as info:
        tool.parse_input({"n": 0})
    assert "n: 0 is less than the minimum of 1" in info.value.message
    with pytest.raises(InputError):
        tool.parse_input({})


def test_broken_schemas_and_name_clashes_are_skipped_with_warnings() -> None:
    specs = [
        _tool("ok"),
        _tool("bad", {"type": "object", "properties": {"x": {"type": "no-such-type"}}}),
        _tool("array", {"type": "array"}),
        _tool("o.k"),
        _tool("o k"),  # normalises to o_k too: a clash
    ]
    tools, warnings = bridge_tools(_NoServer(), specs)
    assert [t.tool_name for t in tools] == ["ok", "o.k"]
    assert any("'bad' skipped: its input schema is invalid" in w for w in warnings)
    assert any("'array' skipped" in w and 'not "object"' in w for w in warnings)
    assert any("'o k' skipped: its name mcp__my_server_v2__o_k is taken" in w for w in warnings)


def test_result_content_mapping() -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(text="hello"),
            types.ImageContent(data="AAAA", mime_type="image/png"),
            types.AudioContent(data="AAAA", mime_type="audio/wav"),
            types.EmbeddedResource(
                resource=types.TextResourceContents(uri="file:///a.txt", text="inside")
            ),
            types.ResourceLink(name="doc", uri="https://x/doc"),
        ]
    )
    blocks = result_blocks(result)
    assert blocks[0] == {"type": "text", "text": "hello"}
    assert blocks[1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
    }
    assert "audio" in blocks[2]["text"]
    assert blocks[3]["text"] == "[resource file:///a.txt]\ninside"
    assert "https://x/doc" in blocks[4]["text"]
    structured = result_blocks(types.CallToolResult(content=[], structured_content={"a": 1}))
    assert structured == [{"type": "text", "text": '{"a": 1}'}]


def test_hook_replaced_output_of_any_shape_is_sent() -> None:
    tool = McpTool(_NoServer(), _tool())
    assert tool.to_result_content("plain") == "plain"
    assert tool.to_result_content({"a": 1}) == '{"a": 1}'
    blocks = [{"type": "text", "text": "x"}]
    assert tool.to_result_content(blocks) == blocks
    assert tool.to_result_content([{"type": "weird"}]) == '[{"type": "weird"}]'
    assert tool.result_summary(blocks) == "x"
