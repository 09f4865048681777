"""The bridge: each tool of an MCP server becomes a Tool named `mcp__<server>__<tool>`.

The server's JSON Schema validates the model's input (jsonschema, in JsonSchemaTool); the server's
annotations become the declarations the scheduler and the permission system read; the server's
content blocks become tool_result blocks. The server is outside our control, so everything it
says is checked: a schema that is not a schema drops the tool, a reply that is not a result
becomes an error the model can read.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, Protocol

import mcp_types as types

from tools.abort import AbortSignal
from tools.base import (
    CanUseTool,
    JsonSchemaTool,
    ProgressCallback,
    ToolContext,
    ToolProgress,
    ToolResult,
)

MAX_NAME = 64
# Claude Code cuts MCP descriptions too: some servers ship whole manuals in them.
MAX_DESCRIPTION = 2048
ALWAYS_LOAD_KEY = "anthropic/alwaysLoad"
_BAD_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def normalize_name(name: str) -> str:
    """Server and tool names as the API accepts them: `[a-zA-Z0-9_-]`, anything else as `_`."""
    return _BAD_CHARS.sub("_", name) or "_"


def mcp_tool_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, at most 64 characters.

    A longer name keeps its start and ends with a short hash of the whole, so two long tools of one
    server stay distinct and the same tool gets the same name in every session.
    """
    full = f"mcp__{normalize_name(server)}__{normalize_name(tool)}"
    if len(full) <= MAX_NAME:
        return full
    digest = hashlib.sha1(full.encode()).hexdigest()[:8]
    return f"{full[: MAX_NAME - 9]}_{digest}"


class ToolCaller(Protocol):
    """What a bridged tool needs of its server's connection (app/mcp/connection.py)."""

    @property
    def server_name(self) -> str: ...

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        abort: AbortSignal,
        on_progress: ProgressCallback | None = None,
    ) -> types.CallToolResult:
        """`on_progress` hears the server's progress notifications for this call."""
        ...


def mcp_progress(progress: float, total: float | None, message: str | None) -> ToolProgress:
    """An MCP progress notification as the tool's progress: its message (else "3/10"), and a
    determinate fraction when the server said the total (the panel's bar)."""
    fraction = min(1.0, max(0.0, progress / total)) if total else None
    counted = f"{progress:g}/{total:g}" if total else f"{progress:g}"
    return ToolProgress(text=message or counted, fraction=fraction)


class McpTool(JsonSchemaTool):
    """One server tool. Its calls go through the server's connection, which owns the timeouts."""

    is_mcp = True
    # readOnlyHint is the server's word: it makes calls concurrent, never allowed (a rule does).
    read_only_allows = False

    def __init__(self, caller: ToolCaller, spec: types.Tool) -> None:
        server = caller.server_name
        description = (spec.description or "").strip() or f"{spec.name} (from MCP server {server})"
        if len(description) > MAX_DESCRIPTION:
            description = description[: MAX_DESCRIPTION - 15] + "... (truncated)"
        super().__init__(mcp_tool_name(server, spec.name), description, _api_schema(spec))
        self.caller = caller
        self.server_name = server
        self.tool_name = spec.name
        hints = spec.annotations
        self.title = (hints.title if hints and hints.title else None) or spec.title or spec.name
        self.read_only = bool(hints and hints.read_only_hint)
        # The spec's default for destructiveHint is true for a tool that is not read-only.
        destructive = hints.destructive_hint if hints else None
        self.destructive = (not self.read_only) if destructive is None else bool(destructive)
        meta = spec.meta or {}
        self.always_load = meta.get(ALWAYS_LOAD_KEY) is True
        self.should_defer = not self.always_load
        self.search_hint = f"{server} {self.title}"

    # -- declarations ------------------------------------------------------------------------

    def is_read_only(self, input: dict[str, Any]) -> bool:
        return self.read_only

    def is_concurrency_safe(self, input: dict[str, Any]) -> bool:
        return self.read_only

    def is_destructive(self, input: dict[str, Any]) -> bool:
        return self.destructive

    def user_facing_name(self, input: dict[str, Any] | None = None) -> str:
        return f"{self.server_name} - {self.title} (MCP)"

    def summary(self, input: dict[str, Any]) -> str:
        text = json.dumps(input, ensure_ascii=False, default=str)
        return text if len(text) <= 120 else text[:117] + "..."

    def result_summary(self, data: Any) -> str:
        content = self.to_result_content(data)
        if isinstance(content, str):
            first = content.strip().splitlines()[0] if content.strip() else ""
            return first[:120]
        images = sum(1 for b in content if b.get("type") == "image")
        texts = [b.get("text", "") for b in content if b.get("type") == "text"]
        line = (texts[0].strip().splitlines() or [""])[0][:100] if texts else ""
        return f"{line} (+{images} image{'s' if images != 1 else ''})" if images else line

    # -- the call ----------------------------------------------------------------------------

    async def call(
        self,
        input: dict[str, Any],
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        result = await self.caller.call_tool(
            self.tool_name, dict(input), context.abort, on_progress
        )
        blocks = result_blocks(result)
        if result.is_error:
            text = _blocks_text(blocks) or f"{self.name} failed without a message"
            return ToolResult(text, is_error=True)
        return ToolResult(blocks)

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        # `data` is our block list, or whatever a PostToolUse hook put in its place.
        if isinstance(data, list) and all(_is_api_block(b) for b in data):
            return [dict(b) for b in data]
        return super().to_result_content(data)


def _api_schema(spec: types.Tool) -> dict[str, Any]:
    """The server's schema, checked once: the API requires an object schema at the root."""
    import jsonschema

    schema = spec.input_schema
    if not isinstance(schema, Mapping):
        raise ValueError("its input schema is not an object")
    schema = dict(schema)
    if schema.get("type") != "object":
        raise ValueError(f'its input schema has type {schema.get("type")!r}, not "object"')
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ValueError(f"its input schema is invalid: {exc.message}") from None
    return schema


def result_blocks(result: types.CallToolResult) -> list[dict[str, Any]]:
    """MCP content -> tool_result content blocks (text and base64 images; the rest as text)."""
    blocks: list[dict[str, Any]] = []
    for item in result.content:
        if isinstance(item, types.TextContent):
            blocks.append({"type": "text", "text": item.text})
        elif isinstance(item, types.ImageContent):
            blocks.append(
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": item.mime_type, "data": item.data},
                }
            )
        elif isinstance(item, types.AudioContent):
            blocks.append({"type": "text", "text": f"[audio content ({item.mime_type}) omitted]"})
        elif isinstance(item, types.EmbeddedResource):
            res = item.resource
            if isinstance(res, types.TextResourceContents):
                blocks.append({"type": "text", "text": f"[resource {res.uri}]\n{res.text}"})
            else:
                blocks.append({"type": "text", "text": f"[binary resource {res.uri} omitted]"})
        elif isinstance(item, types.ResourceLink):
            blocks.append({"type": "text", "text": f"[resource link: {item.name} {item.uri}]"})
    if not blocks and result.structured_content is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False, default=str)
        blocks.append({"type": "text", "text": text})
    return blocks


def _is_api_block(block: Any) -> bool:
    if not isinstance(block, Mapping):
        return False
    if block.get("type") == "text":
        return isinstance(block.get("text"), str)
    return block.get("type") == "image" and isinstance(block.get("source"), Mapping)


def _blocks_text(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(b["text"] for b in blocks if b.get("type") == "text").strip()


def bridge_tools(caller: ToolCaller, specs: list[types.Tool]) -> tuple[list[McpTool], list[str]]:
    """The server's tools as Tools, and one warning per tool that could not be bridged."""
    tools: list[McpTool] = []
    warnings: list[str] = []
    seen: set[str] = set()
    for spec in specs:
        try:
            tool = McpTool(caller, spec)
        except ValueError as exc:
            warnings.append(f"tool {spec.name!r} skipped: {exc}")
            continue
        if tool.name in seen:
            warnings.append(f"tool {spec.name!r} skipped: its name {tool.name} is taken")
            continue
        seen.add(tool.name)
        tools.append(tool)
    return tools, warnings
