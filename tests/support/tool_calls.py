"""Running one model call through a tool the way the pipeline's first stages do, for tool tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools.base import InputError, Tool, ToolContext, ToolError, ToolOptions


def make_context(root: Path, **options: Any) -> ToolContext:
    return ToolContext(
        cwd=str(root),
        project_dir=str(root),
        working_dirs=(str(root),),
        options=ToolOptions(**options),
    )


async def call_tool(tool: Tool[Any], raw: dict[str, Any], context: ToolContext) -> tuple[str, Any]:
    """("input" | "invalid" | "error", message) or ("ok", result data) for one model call."""
    try:
        parsed = tool.parse_input(raw)
    except InputError as exc:
        return "input", exc.message
    check = await tool.validate_input(parsed, context)
    if not check.ok:
        return "invalid", check.message
    try:
        result = await tool.call(parsed, context, None, {}, lambda p: None)  # type: ignore[arg-type]
    except ToolError as exc:
        return "error", exc.message
    return "ok", result.data


async def call_tool_text(
    tool: Tool[Any], raw: dict[str, Any], context: ToolContext
) -> tuple[str, Any]:
    """The same, with the result as the model reads it."""
    kind, value = await call_tool(tool, raw, context)
    return (kind, tool.to_result_content(value)) if kind == "ok" else (kind, value)
