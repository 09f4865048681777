"""The API's context limit, as the HTTP fake and the offline model enforce it.

The real API counts a request's tokens and refuses one whose prompt is longer than the model's
window with a 400 `invalid_request_error` ("prompt is too long: N tokens > M maximum"), or, when the
prompt fits but the prompt plus `max_tokens` does not, "input length and `max_tokens` exceed context
limit". The fakes count with `request_tokens` (about four characters a token of the request's JSON),
report that count as the response's usage, and answer lathe's compaction requests (recognised by
`tool_choice: none`) with a generated summary when a scenario asks for `auto_summary`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from app.model.scenario import Turn, text_turn

CHARS_PER_TOKEN = 4
_PATH_KEYS = ("file_path", "path", "pattern", "command")


def request_tokens(body: Mapping[str, Any]) -> int:
    """The fake's token count of a request: what the prompt carries (system, tools, messages)."""
    counted = {k: body.get(k) for k in ("system", "tools", "messages") if body.get(k) is not None}
    raw = json.dumps(counted, ensure_ascii=False, separators=(",", ":"))
    return len(raw) // CHARS_PER_TOKEN + 1


def limit_error(body: Mapping[str, Any], limit: int | None) -> str | None:
    """The API's 400 message when the request does not fit `limit` tokens, else None."""
    if limit is None:
        return None
    tokens = request_tokens(body)
    if tokens > limit:
        return f"prompt is too long: {tokens} tokens > {limit} maximum"
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, int) and tokens + max_tokens > limit:
        return (
            f"input length and `max_tokens` exceed context limit: {tokens} + {max_tokens} > "
            f"{limit}, decrease input length or `max_tokens` and try again"
        )
    return None


def is_summary_request(body: Mapping[str, Any]) -> bool:
    """lathe's compaction requests forbid tool calls (`tool_choice: none`); turns never do."""
    choice = body.get("tool_choice")
    return isinstance(choice, Mapping) and choice.get("type") == "none"


def summary_turn(body: Mapping[str, Any]) -> Turn:
    """A structured summary of the request's conversation, as a model would write one: the user's
    requests, the files its tools touched, the last thing said. Deterministic, so tests can check
    what survived a compaction."""
    requests: list[str] = []
    files: list[str] = []
    last_text = ""
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, Mapping) else None
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "text" and message.get("role") == "user":
                text = str(block.get("text", ""))
                if "<summary>\n" in text:
                    # An earlier compaction's summary: its requests are still the user's.
                    requests.extend(_earlier_requests(text))
                elif text and not text.startswith(("<system-reminder>", "[")):
                    requests.append(_first_line(text))
            elif block.get("type") == "text":
                last_text = _first_line(str(block.get("text", "")))
            elif block.get("type") == "tool_use":
                tool_input = block.get("input")
                if isinstance(tool_input, Mapping):
                    for key in _PATH_KEYS:
                        if isinstance(tool_input.get(key), str):
                            files.append(f"{block.get('name')}: {tool_input[key]}")
                            break
    # The compaction prompt itself is the last user text; it is not one of the user's requests.
    requests = requests[:-1]
    text = "\n".join(
        [
            "<summary>",
            "1. Primary Request and Intent:",
            *(f"   - {r}" for r in _dedupe(requests)[-8:]),
            "2. Key Technical Concepts and Decisions: (scripted summary)",
            "3. Files and Code Sections:",
            *(f"   - {f}" for f in _dedupe(files)[-12:]),
            "4. Errors and Fixes: none recorded",
            "5. Pending Tasks: continue the scripted work",
            f"6. Current Work: {last_text or 'the last tool results'}",
            "7. Next Step: go on with the task",
            "</summary>",
        ]
    )
    return text_turn(text)


def _earlier_requests(text: str) -> list[str]:
    section = text.split("1. Primary Request and Intent:", 1)[-1].split("\n2. ", 1)[0]
    return [line[5:] for line in section.splitlines() if line.startswith("   - ")]


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:160]


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


_TOO_LONG = re.compile(r"prompt is too long: (\d+) tokens > (\d+)")


_WITH_OUTPUT = re.compile(r"exceed context limit: (\d+) \+ (\d+) > (\d+)")


def parse_too_long(message: str) -> tuple[int, int] | None:
    """(tokens, maximum) from the API's "prompt is too long" message, when it says them."""
    m = _TOO_LONG.search(message)
    return (int(m.group(1)), int(m.group(2))) if m else None


def overflow_of(message: str) -> tuple[int, int] | None:
    """(tokens asked for, the window) from either overflow message: "prompt is too long: N
    tokens > M maximum", or "input length and `max_tokens` exceed context limit: N + K > M"
    (where the request asked for N + K). The window M is the server's real one."""
    found = parse_too_long(message)
    if found:
        return found
    m = _WITH_OUTPUT.search(message)
    return (int(m.group(1)) + int(m.group(2)), int(m.group(3))) if m else None
