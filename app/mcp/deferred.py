"""Deferred loading: with many tools, deferrable ones are sent by name only, found with ToolSearch.

A deferred tool's full definition stays out of the request until the model loads it with
ToolSearch; from then on (the ToolSearch result is in the conversation) it is sent in full, so the
model can call it with its real schema. Nothing is deferred without ToolSearch in the pool: the
model would have no way to load it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tools.base import Tool

DEFAULT_THRESHOLD = 40
# Deferrable definitions larger than this (characters of JSON) are deferred however few tools.
DEFAULT_CHAR_BUDGET = 40_000
TOOL_SEARCH = "ToolSearch"
_FUNCTION = re.compile(r'<function>\{"name":\s*"([^"]+)"')


@dataclass(frozen=True)
class DeferredSplit:
    sent: list[dict[str, Any]]
    deferred: list[str]

    def schema_sent(self, name: str) -> bool:
        """For PipelineDeps.schema_sent: False for a tool the model only knows by name."""
        return name not in self.deferred


def _deferrable(tool: Tool[Any]) -> bool:
    return tool.should_defer and not tool.always_load


def split_deferred(
    pool_tools: Sequence[Tool[Any]],
    threshold: int = DEFAULT_THRESHOLD,
    *,
    loaded: Collection[str] = (),
    char_budget: int = DEFAULT_CHAR_BUDGET,
) -> DeferredSplit:
    """The definitions to send and the names of the tools held back.

    Deferral starts when the pool has more than `threshold` tools or the deferrable definitions
    exceed `char_budget`. `loaded` names tools the model already loaded with ToolSearch (see
    `loaded_tool_names`): they are sent in full. The order of `pool_tools` is kept, so the
    built-in prefix (and its cache breakpoint) is unchanged.
    """
    definitions = [(tool, tool.api_definition()) for tool in pool_tools]
    has_search = any(tool.name == TOOL_SEARCH for tool in pool_tools)
    deferrable_size = sum(
        len(json.dumps(d, ensure_ascii=False)) for t, d in definitions if _deferrable(t)
    )
    active = has_search and (len(definitions) > threshold or deferrable_size > char_budget)
    sent: list[dict[str, Any]] = []
    deferred: list[str] = []
    for tool, definition in definitions:
        if active and _deferrable(tool) and tool.name not in loaded:
            deferred.append(tool.name)
        else:
            sent.append(definition)
    return DeferredSplit(sent, deferred)


def deferred_tools_text(deferred: Iterable[str]) -> str:
    """The system prompt part that lists deferred tools by name ("" when there are none)."""
    names = list(deferred)
    if not names:
        return ""
    listing = "\n".join(names)
    return (
        "The following tools are available but deferred: only their names are loaded. Before "
        'calling one, load its definition with ToolSearch (query "select:<name>", or keywords '
        "to search them).\n"
        f"<available-deferred-tools>\n{listing}\n</available-deferred-tools>"
    )


def loaded_tool_names(messages: Iterable[Mapping[str, Any]]) -> set[str]:
    """Tools whose definitions a ToolSearch result in the conversation has given the model."""
    found: set[str] = set()
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, Mapping) or block.get("type") != "tool_result":
                continue
            inner = block.get("content")
            texts: list[str] = []
            if isinstance(inner, str):
                texts.append(inner)
            elif isinstance(inner, list):
                texts.extend(
                    b.get("text", "") for b in inner if isinstance(b, Mapping) and "text" in b
                )
            for text in texts:
                if isinstance(text, str) and "<function>" in text:
                    found.update(_FUNCTION.findall(text))
    return found
