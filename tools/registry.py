"""The tool registry: three concentric steps, each narrower.

1. `get_all_base_tools()`: every tool this build may offer, in a frozen, append-only order.
2. `get_tools(...)`: what this session offers (simple mode, blanket deny rules, `is_enabled`).
3. `assemble_tool_pool(...)`: built-ins sorted by name as one contiguous prefix, then MCP tools
   sorted by name as a suffix. The prompt-cache breakpoint goes after the last built-in, so adding or
   removing an MCP server never invalidates the cached built-in prefix.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tools.base import Tool

# (module, class). Frozen and append-only: the tool list enters the prompt and its prefix is a
# cache key. Never reorder or remove an entry; gate optional tools in get_all_base_tools instead.
_BASE_TOOLS: tuple[tuple[str, str], ...] = (
    ("tools.bash", "BashTool"),
    ("tools.bash_output", "BashOutputTool"),
    ("tools.task_stop", "TaskStopTool"),
    ("tools.read", "ReadTool"),
    ("tools.write", "WriteTool"),
    ("tools.edit", "EditTool"),
    ("tools.glob", "GlobTool"),
    ("tools.grep", "GrepTool"),
    ("tools.web_fetch", "WebFetchTool"),
    ("tools.todo_write", "TodoWriteTool"),
    ("tools.tool_search", "ToolSearchTool"),
    ("tools.notebook_edit", "NotebookEditTool"),
    ("tools.ask_user_question", "AskUserQuestionTool"),
    ("tools.exit_plan_mode", "ExitPlanModeTool"),
    ("tools.web_search", "WebSearchTool"),
    ("tools.skill", "SkillTool"),
    ("tools.agent", "AgentTool"),
)

SIMPLE_MODE_TOOLS = frozenset({"Bash", "Read", "Edit"})


class BlanketDenyFilter(Protocol):
    """Answers whether a deny rule without specifier removes a tool entirely."""

    def blanket_denied(self, tool_name: str) -> bool: ...


class NoDenies:
    def blanket_denied(self, tool_name: str) -> bool:
        return False


def _load(module: str, cls: str) -> Tool[Any]:
    tool_cls = getattr(importlib.import_module(module), cls)
    tool: Tool[Any] = tool_cls()
    return tool


def base_tool_classes() -> list[type[Tool[Any]]]:
    """The classes of every built-in tool, in the frozen order (their declarations, unbuilt)."""
    return [getattr(importlib.import_module(module), cls) for module, cls in _BASE_TOOLS]


def get_all_base_tools() -> list[Tool[Any]]:
    """Every built-in tool, in the frozen order."""
    return [_load(module, cls) for module, cls in _BASE_TOOLS]


def simple_mode_from_env() -> bool:
    return os.environ.get("LATHE_SIMPLE", "").strip().lower() in {"1", "true", "yes", "on"}


def get_tools(
    deny_filter: BlanketDenyFilter | None = None,
    *,
    simple: bool | None = None,
    base_tools: Sequence[Tool[Any]] | None = None,
) -> list[Tool[Any]]:
    """The built-in tools this session offers.

    A rule with a specifier (`Bash(rm:*)`) cannot be judged here, where there is no input yet; it is
    left to call time. Only blanket denies remove a tool before the model sees it.
    """
    tools = list(base_tools) if base_tools is not None else get_all_base_tools()
    if simple if simple is not None else simple_mode_from_env():
        tools = [t for t in tools if t.name in SIMPLE_MODE_TOOLS]
    denies = deny_filter or NoDenies()
    tools = [t for t in tools if not denies.blanket_denied(t.name)]
    # is_enabled() is evaluated exactly once per tool: map, then filter.
    enabled = [(t, t.is_enabled()) for t in tools]
    return [t for t, on in enabled if on]


@dataclass(frozen=True)
class ToolPool:
    """The tools of a session as the model sees them, and where the cache breakpoint goes."""

    tools: tuple[Tool[Any], ...]
    # Index of the last built-in tool (the cache breakpoint), or -1 when there is none.
    builtin_breakpoint: int

    def find(self, name: str) -> Tool[Any] | None:
        return find_tool(self.tools, name)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tools]


def assemble_tool_pool(
    builtin_tools: Iterable[Tool[Any]],
    mcp_tools: Iterable[Tool[Any]] = (),
    deny_filter: BlanketDenyFilter | None = None,
) -> ToolPool:
    denies = deny_filter or NoDenies()
    builtins = sorted(builtin_tools, key=lambda t: t.name)
    seen = {t.name for t in builtins}
    extra: list[Tool[Any]] = []
    for tool in sorted(mcp_tools, key=lambda t: t.name):
        # Built-ins win a name clash; an MCP tool must never shadow Bash or Read.
        if tool.name in seen or denies.blanket_denied(tool.name):
            continue
        seen.add(tool.name)
        extra.append(tool)
    return ToolPool(tuple(builtins + extra), len(builtins) - 1)


def find_tool(tools: Iterable[Tool[Any]], name: str) -> Tool[Any] | None:
    """Lookup by name, falling back to aliases so old transcripts still resolve."""
    tools = list(tools)
    for tool in tools:
        if tool.name == name:
            return tool
    for tool in tools:
        if name in tool.aliases:
            return tool
    return None
