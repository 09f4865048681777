"""What a broken stream leaves that is worth keeping: the complete part of the response.

A tool_use block goes to the executor the moment its `content_block_stop` arrives, so by the time a
stream breaks its tool may have run (a Bash command appended to a file). Discarding the response
and asking again, as Claude Code does, runs that command again, or, when the retries run out,
leaves it run with no record. Instead (DESIGN.md section 13), when at least one tool_use block is
complete the response is kept up to its last complete block and becomes the assistant message; the
tools get their real results, which go to the model in tool_use order, and the conversation
continues from there. A tool runs again only if the model asks again. With no complete tool_use
nothing has run, and the whole response is retried as before.

Which blocks stay: every complete block (text, thinking with its signature, tool_use). An
unfinished block goes, including the text of a text block cut mid-way: it is a fragment the model
never finished, history carries no mark that it was cut, so the model would read half a sentence
as its finished word; it has no effect to preserve, and the model says again what it meant once it
sees the results. (An interrupt keeps such text: there the user stopped the model on purpose, and
the model should know what the user read. Here the network cut it.)
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from app.engine.stream import StreamAccumulator

_SERVER_RESULT_SUFFIX = "_tool_result"
_SERVER_CALLS = frozenset({"server_tool_use", "mcp_tool_use"})


@dataclass(frozen=True)
class BrokenStream:
    """A response that broke after some of its tools were complete; the next request continues
    from it. `attempts_used` carries the retry budget on: a link that breaks every response still
    gives up after LATHE_MAX_RETRIES, with every result recorded."""

    attempts_used: int
    reason: str


def kept_message(acc: StreamAccumulator, tool_ids: Collection[str]) -> dict[str, Any] | None:
    """The assistant message of the response's complete blocks, or None when no tool_use block is
    complete (nothing ran: retry the whole response). `tool_ids` are the tool_use ids the executor
    was given: each kept tool_use has exactly one result coming."""
    message = acc.message()  # complete blocks only (see the module docstring for why)
    content = [
        b for b in message["content"] if b.get("type") != "tool_use" or b.get("id") in tool_ids
    ]
    if not any(b.get("type") == "tool_use" for b in content):
        return None
    message["content"] = _without_unanswered_server_tools(content)
    return message


def _without_unanswered_server_tools(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A server tool call (web search, an MCP connector call) whose result block had not arrived
    would be refused by the API, as a tool_use without its tool_result is; it goes."""
    answered = {
        b.get("tool_use_id")
        for b in content
        if str(b.get("type", "")).endswith(_SERVER_RESULT_SUFFIX) and b.get("type") != "tool_result"
    }
    return [b for b in content if b.get("type") not in _SERVER_CALLS or b.get("id") in answered]


def kept_notice(message: dict[str, Any], reason: str) -> str:
    count = sum(1 for b in message["content"] if b.get("type") == "tool_use")
    calls = "1 tool call" if count == 1 else f"{count} tool calls"
    return (
        f"{reason}. Kept the response up to its last complete block ({calls}): they run once "
        "and their results go to the model."
    )


def continuing_reason(reason: str) -> str:
    return f"{reason}; continuing from the kept response"
