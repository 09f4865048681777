"""WebSearch: the API's server-side web search, run as a side request, as Claude Code runs it.

The main conversation sees an ordinary client tool (so its history holds only tool_use and
tool_result); the call asks the session's model once with the `web_search_20250305` server tool
and turns the answer (text, `web_search_tool_result` hits) into Claude Code's result text. Where the
endpoint has no web search, the searcher raises WebSearchUnavailable and the model reads why.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from tools.base import (
    CanUseTool,
    InterruptBehavior,
    ProgressCallback,
    Tool,
    ToolContext,
    ToolError,
    ToolInput,
    ToolProgress,
    ToolResult,
    WebSearchRequest,
    WebSearchUnavailable,
)
from tools.decisions import ValidationResult

BOTH_LISTS = "Error: Cannot specify both allowed_domains and blocked_domains in the same request"
MISSING_QUERY = "Error: Missing query"
REMINDER = (
    "REMINDER: You MUST include the sources above in your response to the user using markdown "
    "hyperlinks."
)
NO_BACKEND = "Web search is not available: this model backend cannot run the API's web search."
_OFF = {"0", "false", "no", "off"}


class WebSearchInput(ToolInput):
    query: str = Field(min_length=2, description="The search query to use")
    allowed_domains: list[str] | None = Field(
        default=None, description="Only include search results from these domains"
    )
    blocked_domains: list[str] | None = Field(
        default=None, description="Never include search results from these domains"
    )


@dataclass(frozen=True)
class SearchHits:
    tool_use_id: str
    hits: tuple[tuple[str, str], ...]  # (title, url)


@dataclass(frozen=True)
class WebSearchOutput:
    query: str
    results: tuple[str | SearchHits, ...]
    duration_s: float

    @property
    def hit_count(self) -> int:
        return sum(len(r.hits) for r in self.results if isinstance(r, SearchHits))


def parse_results(blocks: list[dict[str, Any]]) -> tuple[str | SearchHits, ...]:
    """Text and hits in answer order; a search error is said in words."""
    out: list[str | SearchHits] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            text = str(block.get("text") or "").strip()
            if text:
                out.append(text)
        elif kind == "web_search_tool_result":
            content = block.get("content")
            if isinstance(content, list):
                hits = tuple(
                    (str(h.get("title") or ""), str(h.get("url") or ""))
                    for h in content
                    if isinstance(h, dict) and h.get("url")
                )
                out.append(SearchHits(str(block.get("tool_use_id") or ""), hits))
            elif isinstance(content, dict):
                out.append(f"Web search error: {content.get('error_code', 'unknown')}")
    return tuple(out)


def result_text(output: WebSearchOutput) -> str:
    """Claude Code's shape: the query line, then each text and each hit list, then the reminder."""
    text = f'Web search results for query: "{output.query}"\n\n'
    for result in output.results:
        if isinstance(result, str):
            text += result + "\n\n"
        elif result.hits:
            links = [{"title": t, "url": u} for t, u in result.hits]
            text += f"Links: {json.dumps(links, ensure_ascii=False, separators=(',', ':'))}\n\n"
        else:
            text += "No links found.\n\n"
    return text + "\n" + REMINDER


class WebSearchTool(Tool[WebSearchInput]):
    name = "WebSearch"
    search_hint = "search the web for current information"
    input_model = WebSearchInput

    def is_enabled(self) -> bool:
        # Endpoints without server tools (some proxies, Bedrock, Vertex): LATHE_WEB_SEARCH=0.
        return os.environ.get("LATHE_WEB_SEARCH", "").strip().lower() not in _OFF

    # Asks in default and acceptEdits mode, as Claude Code does: searching sends the query out.
    def is_concurrency_safe(self, input: WebSearchInput) -> bool:
        return True

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    def summary(self, input: WebSearchInput) -> str:
        return input.query

    def permission_subject(self, input: WebSearchInput) -> str | None:
        return input.query

    def result_summary(self, data: Any) -> str:
        if not isinstance(data, WebSearchOutput):
            return ""
        return f"{data.hit_count} results in {data.duration_s:.1f}s"

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, WebSearchOutput):
            return result_text(data)
        return super().to_result_content(data)

    async def validate_input(self, input: WebSearchInput, context: ToolContext) -> ValidationResult:
        if not input.query.strip():
            return ValidationResult.failure(MISSING_QUERY, error_code=1)
        if input.allowed_domains and input.blocked_domains:
            return ValidationResult.failure(BOTH_LISTS, error_code=2)
        return ValidationResult.success()

    async def call(
        self,
        input: WebSearchInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        search = context.web_search
        if search is None:
            raise ToolError(NO_BACKEND)
        on_progress(ToolProgress(text=f"Searching: {input.query}"))
        started = time.monotonic()
        request = WebSearchRequest(
            input.query, tuple(input.allowed_domains or ()), tuple(input.blocked_domains or ())
        )
        try:
            blocks = await search(request)
        except WebSearchUnavailable as exc:
            raise ToolError(exc.message) from None
        output = WebSearchOutput(input.query, parse_results(blocks), time.monotonic() - started)
        return ToolResult(data=output)
