"""ToolSearch: find deferred tools (sent to the model by name only) and load their definitions."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from tools.base import (
    CanUseTool,
    InterruptBehavior,
    ProgressCallback,
    ReadOnlyTool,
    ResultView,
    Tool,
    ToolContext,
    ToolInput,
    ToolResult,
)
from tools.decisions import DecisionReason, PermissionDecision, ValidationResult

MAX_RESULTS_CAP = 50
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


class ToolSearchInput(ToolInput):
    query: str = Field(
        description=(
            'Query to find deferred tools. Use "select:<tool_name>[,<tool_name>...]" for exact '
            'names, keywords to search ("slack message"), or "+word" to require a word in the '
            "tool name"
        )
    )
    max_results: int = Field(default=5, description="Maximum number of results to return")


def name_parts(name: str) -> list[str]:
    """`mcp__slack__send_message` -> mcp, slack, send, message; `NotebookEdit` -> notebook, edit."""
    parts: list[str] = []
    for piece in re.split(r"[_\-\s.:/]+", name):
        parts.extend(m.group().lower() for m in _CAMEL.finditer(piece))
    return parts


def score_tool(tool: Tool[Any], terms: list[str]) -> int:
    name = tool.name.lower()
    parts = name_parts(tool.name)
    hint = tool.search_hint.lower()
    hint_words = set(re.findall(r"\w+", hint))
    try:
        description = tool.description().lower()
    except Exception:  # a broken description must not break the search
        description = ""
    score = 0
    for term in terms:
        if term == name:
            score += 20
        if term in parts:
            score += 10
        elif term in name:
            score += 5
        if term in hint_words:
            score += 4
        elif term in hint:
            score += 2
        if term in description:
            score += 1
    return score


def search(tools: list[Tool[Any]], query: str, limit: int) -> list[Tool[Any]]:
    words = query.lower().split()
    required = [w[1:] for w in words if w.startswith("+") and len(w) > 1]
    terms = [w for w in words if not w.startswith("+")]
    pool = [t for t in tools if all(r in t.name.lower() for r in required)]
    if not terms:
        return sorted(pool, key=lambda t: t.name)[:limit] if required else []
    scored = [(score_tool(t, terms + required), t) for t in pool]
    ranked = sorted((p for p in scored if p[0] > 0), key=lambda p: (-p[0], p[1].name))
    return [t for _, t in ranked[:limit]]


def select(tools: tuple[Tool[Any], ...], names: list[str]) -> tuple[list[Tool[Any]], list[str]]:
    found: list[Tool[Any]] = []
    missing: list[str] = []
    for wanted in names:
        tool = next((t for t in tools if t.matches_name(wanted)), None)
        if tool is None:
            tool = next((t for t in tools if t.name.lower() == wanted.lower()), None)
        if tool is None:
            missing.append(wanted)
        elif tool not in found:
            found.append(tool)
    return found, missing


class ToolSearchTool(ReadOnlyTool[ToolSearchInput]):
    name = "ToolSearch"
    search_hint = "find search discover load deferred tools mcp"
    input_model = ToolSearchInput

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    def summary(self, input: ToolSearchInput) -> str:
        return input.query

    async def check_permissions(
        self, input: ToolSearchInput, context: ToolContext
    ) -> PermissionDecision:
        return PermissionDecision.allow(
            DecisionReason("tool", "ToolSearch only reads tool definitions")
        )

    async def validate_input(
        self, input: ToolSearchInput, context: ToolContext
    ) -> ValidationResult:
        if not input.query.strip():
            return ValidationResult.failure("The query is empty.", 1)
        if input.max_results < 1:
            return ValidationResult.failure("max_results must be at least 1.", 2)
        return ValidationResult.success()

    async def call(
        self,
        input: ToolSearchInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        limit = max(1, min(input.max_results, MAX_RESULTS_CAP))
        query = input.query.strip()
        deferred = [t for t in context.tools if t.should_defer and not t.always_load]
        missing: list[str] = []
        if query.lower().startswith("select:"):
            names = [n.strip() for n in query[len("select:") :].split(",") if n.strip()]
            matches, missing = select(context.tools, names)
        else:
            matches = search(deferred, query, limit)
        definitions = [t.api_definition() for t in matches]
        data = {
            "query": query,
            "matches": [t.name for t in matches],
            "missing": missing,
            "total_deferred_tools": len(deferred),
            "definitions": definitions,
        }
        return ToolResult(data)

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if not isinstance(data, dict) or "definitions" not in data:
            return super().to_result_content(data)
        matches: list[str] = data["matches"]
        lines = []
        if matches:
            lines.append(
                f"Found {len(matches)} tool{'s' if len(matches) != 1 else ''}: "
                f"{', '.join(matches)}. Their definitions follow; you can call them now."
            )
        else:
            lines.append(
                f"No tools matched {data['query']!r} among {data['total_deferred_tools']} "
                "deferred tools. Try other keywords, or select:<exact name>."
            )
        if data["missing"]:
            lines.append(f"Not found: {', '.join(data['missing'])}.")
        blocks: list[dict[str, Any]] = [{"type": "text", "text": " ".join(lines)}]
        for definition in data["definitions"]:
            text = f"<function>{json.dumps(definition, ensure_ascii=False)}</function>"
            blocks.append({"type": "text", "text": text})
        return blocks

    def result_summary(self, data: Any) -> str:
        if not isinstance(data, Mapping):
            return ""
        matches = [str(m) for m in data.get("matches") or []]
        line = f"Loaded {', '.join(matches)}" if matches else "No matching tools"
        missing = [str(m) for m in data.get("missing") or []]
        return line + (f" · not found: {', '.join(missing)}" if missing else "")

    def result_view(self, data: Any, is_error: bool) -> ResultView | None:
        """One line of what was found: the definitions and the instructions are the model's
        (Claude Code 2.1.332 draws no ToolSearch block at all, measured in tmux; lathe keeps
        one line so every call stays visible)."""
        if isinstance(data, Mapping) and not is_error and "matches" in data:
            return ResultView(self.result_summary(data), "", own_body=True)
        return super().result_view(data, is_error)

    def result_from_record(self, recorded: Any, content: str) -> dict[str, Any] | None:
        """The transcript's `toolUseResult` is this data as it was (the matches, the query)."""
        if isinstance(recorded, Mapping) and isinstance(recorded.get("matches"), list):
            return dict(recorded)
        return None
