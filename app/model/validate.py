"""The Messages API's request rules, checked the way the real API rejects a request (a 400).

Both the HTTP fake and the offline model enforce them, so a loop that would send an invalid
conversation fails in tests and in the demo exactly as it would against the real API. Messages follow
the real API's wording where it is known.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.model.thinking_seal import seal_intact, signature_matches

MAX_CACHE_BREAKPOINTS = 4
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")


class RequestInvalid(ValueError):
    """The request breaks an API rule; str(self) is the message the API would send."""


def _count_cache_control(value: Any) -> int:
    if isinstance(value, dict):
        own = 1 if value.get("cache_control") is not None else 0
        return own + sum(_count_cache_control(v) for k, v in value.items() if k != "cache_control")
    if isinstance(value, list):
        return sum(_count_cache_control(v) for v in value)
    return 0


def count_cache_breakpoints(body: Mapping[str, Any]) -> int:
    return sum(_count_cache_control(body.get(k)) for k in ("system", "tools", "messages"))


def validate_request(body: Any) -> None:
    """Raise RequestInvalid with the API's message for the first broken rule."""
    if not isinstance(body, dict):
        raise RequestInvalid("request body must be a JSON object")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise RequestInvalid("model: Field required")
    max_tokens = body.get("max_tokens")
    if max_tokens is None:
        raise RequestInvalid("max_tokens: Field required")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise RequestInvalid("max_tokens: Input should be a valid integer greater than 0")
    _check_system(body.get("system"))
    _check_tools(body.get("tools"))
    _check_messages(body.get("messages"))
    found = count_cache_breakpoints(body)
    if found > MAX_CACHE_BREAKPOINTS:
        raise RequestInvalid(
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {found}."
        )


def _check_system(system: Any) -> None:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        raise RequestInvalid("system: Input should be a valid string or list of text blocks")
    for i, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text":
            raise RequestInvalid(f"system.{i}: Input should be a text block")
        if not isinstance(block.get("text"), str) or not block["text"]:
            raise RequestInvalid(f"system.{i}: text content blocks must be non-empty")


def _check_tools(tools: Any) -> None:
    if tools is None:
        return
    if not isinstance(tools, list):
        raise RequestInvalid("tools: Input should be a valid list")
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise RequestInvalid(f"tools.{i}: Input should be a valid dictionary")
        if "type" in tool and tool["type"] not in (None, "custom"):
            continue  # server tools (web_search_...) carry no input_schema
        name = tool.get("name")
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            raise RequestInvalid(
                f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'"
            )
        if name in seen:
            raise RequestInvalid("tools: Tool names must be unique.")
        seen.add(name)
        schema = tool.get("input_schema")
        if not isinstance(schema, dict):
            raise RequestInvalid(f"tools.{i}.custom.input_schema: Field required")
        if schema.get("type") != "object":
            raise RequestInvalid(f"tools.{i}.custom.input_schema.type: Input should be 'object'")


def _blocks(message: dict[str, Any], i: int) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            raise RequestInvalid(
                f"messages.{i}: all messages must have non-empty content except for the "
                "optional final assistant message"
            )
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise RequestInvalid(f"messages.{i}.content: Input should be a valid list or string")
    for j, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise RequestInvalid(f"messages.{i}.content.{j}: each block must have a 'type'")
        if block["type"] == "text" and not block.get("text"):
            raise RequestInvalid(f"messages.{i}.content.{j}: text content blocks must be non-empty")
    return content


def _check_messages(messages: Any) -> None:
    if not isinstance(messages, list) or not messages:
        raise RequestInvalid("messages: at least one message is required")
    prev_role = ""
    pending: list[str] = []  # tool_use ids of the previous assistant message
    seen_ids: set[str] = set()
    last = len(messages) - 1
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise RequestInvalid(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        role = message["role"]
        if i == 0 and role != "user":
            raise RequestInvalid('messages: first message must use the "user" role')
        if role == prev_role:
            raise RequestInvalid(
                f'messages.{i}: roles must alternate between "user" and "assistant"'
            )
        if not (role == "assistant" and i == last and message.get("content") == []):
            blocks = _blocks(message, i)
            if not blocks:
                raise RequestInvalid(
                    f"messages.{i}: all messages must have non-empty content except for the "
                    "optional final assistant message"
                )
        else:
            blocks = []
        if role == "assistant":
            pending = []
            _check_server_tools(blocks, i)
            for j, block in enumerate(blocks):
                if block["type"] == "tool_result":
                    raise RequestInvalid(
                        f"messages.{i}.content.{j}: tool_result blocks are only allowed in user "
                        "messages"
                    )
                if block["type"] in ("thinking", "redacted_thinking"):
                    _check_thinking(block, i, j)
                if block["type"] == "tool_use":
                    tid = block.get("id")
                    if not isinstance(tid, str) or not tid:
                        raise RequestInvalid(f"messages.{i}.content.{j}.id: Field required")
                    if tid in seen_ids:
                        raise RequestInvalid(
                            f"messages.{i}.content.{j}: `tool_use` ids must be unique"
                        )
                    if not isinstance(block.get("input"), dict):
                        raise RequestInvalid(
                            f"messages.{i}.content.{j}.input: Input should be a valid dictionary"
                        )
                    seen_ids.add(tid)
                    pending.append(tid)
            if pending and i == last:
                _missing_results(i, pending)
        else:
            _check_user(blocks, i, pending)
            pending = []
        prev_role = role


def _check_thinking(block: dict[str, Any], i: int, j: int) -> None:
    """Thinking goes back exactly as it came: signed text, sealed redacted data."""
    where = f"messages.{i}.content.{j}"
    if block["type"] == "redacted_thinking":
        data = block.get("data")
        if not isinstance(data, str) or not data:
            raise RequestInvalid(f"{where}.data: Field required")
        if not seal_intact(data):
            raise RequestInvalid(f"{where}: Invalid `data` in `redacted_thinking` block")
        return
    thinking, signature = block.get("thinking"), block.get("signature")
    if not isinstance(thinking, str):
        raise RequestInvalid(f"{where}.thinking: Field required")
    if not isinstance(signature, str) or not signature:
        raise RequestInvalid(f"{where}.signature: Field required")
    if not signature_matches(thinking, signature):
        raise RequestInvalid(f"{where}: Invalid `signature` in `thinking` block")


_SERVER_RESULTS = ("web_search_tool_result",)


def _check_server_tools(blocks: list[dict[str, Any]], i: int) -> None:
    """Server tool blocks (web search) come back in the assistant message that used them: each
    result must follow its server_tool_use in that same message."""
    used: set[str] = set()
    for j, block in enumerate(blocks):
        if block["type"] == "server_tool_use":
            sid = block.get("id")
            if not isinstance(sid, str) or not sid.startswith("srvtoolu_"):
                raise RequestInvalid(
                    f"messages.{i}.content.{j}.id: String should match pattern '^srvtoolu_'"
                )
            if not isinstance(block.get("input"), dict):
                raise RequestInvalid(
                    f"messages.{i}.content.{j}.input: Input should be a valid dictionary"
                )
            used.add(sid)
        elif block["type"] in _SERVER_RESULTS and block.get("tool_use_id") not in used:
            raise RequestInvalid(
                f"messages.{i}.content.{j}: `{block['type']}` block with tool_use_id "
                f"{block.get('tool_use_id')} has no `server_tool_use` before it"
            )


def _missing_results(i: int, ids: list[str]) -> None:
    raise RequestInvalid(
        f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
        f"after: {', '.join(ids)}. Each `tool_use` block must have a corresponding "
        "`tool_result` block in the next message."
    )


def _check_user(blocks: list[dict[str, Any]], i: int, pending: list[str]) -> None:
    answered: list[str] = []
    other_seen = False
    for j, block in enumerate(blocks):
        if block["type"] == "tool_use":
            raise RequestInvalid(
                f"messages.{i}.content.{j}: tool_use blocks are only allowed in assistant messages"
            )
        if block["type"] == "server_tool_use" or block["type"] in _SERVER_RESULTS:
            raise RequestInvalid(
                f"messages.{i}.content.{j}: {block['type']} blocks are only allowed in assistant "
                "messages"
            )
        if block["type"] != "tool_result":
            other_seen = True
            continue
        tid = block.get("tool_use_id")
        if tid not in pending:
            raise RequestInvalid(
                f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` "
                f"blocks: {tid}. Each `tool_result` block must have a corresponding `tool_use` "
                "block in the previous message."
            )
        if tid in answered:
            raise RequestInvalid(
                f"messages.{i}.content.{j}: each tool_use must have a single result. "
                f"Found multiple `tool_result` blocks with id: {tid}"
            )
        if other_seen:
            raise RequestInvalid(
                f"messages.{i - 1}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {tid}. Each `tool_use` block must have a corresponding "
                "`tool_result` block in the next message, and tool_result blocks must come "
                "first in the content."
            )
        content = block.get("content")
        if content is not None and not isinstance(content, str | list):
            raise RequestInvalid(
                f"messages.{i}.content.{j}.content: Input should be a valid string or list"
            )
        answered.append(tid)
    missing = [t for t in pending if t not in answered]
    if missing:
        _missing_results(i - 1, missing)
