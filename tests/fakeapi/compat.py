"""Opt-in leniencies that let other clients than lathe run against the fake (the start-up bench
runs Claude Code beside lathe): nothing here is on by default, so lathe's own tests stay strict.

- `fold_system_messages`: Claude Code 2.1.332 sends `{"role": "system"}` entries inside
  `messages`, which the rules in app.model.validate predate; the body is validated with those
  entries taken out and the neighbours they separated joined, as the API joins consecutive turns.
- `is_side_request` (with `FakeAPI(script_model=...)`): requests for another model (title and
  topic side queries) are answered with the final text and do not use up a scripted turn.
"""

from __future__ import annotations

import copy
from typing import Any


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content) if isinstance(content, list) else [content]


def fold_system_messages(body: Any) -> Any:
    """The body with system-role messages removed and same-role neighbours merged."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return body
    folded: list[dict[str, Any]] = []
    for message in body["messages"]:
        if isinstance(message, dict) and message.get("role") == "system":
            continue
        if folded and isinstance(message, dict) and message.get("role") == folded[-1].get("role"):
            folded[-1]["content"] = _blocks(folded[-1].get("content")) + _blocks(
                message.get("content")
            )
            continue
        folded.append(copy.copy(message) if isinstance(message, dict) else message)
    out = dict(body)
    out["messages"] = folded
    return out


def is_side_request(body: Any, script_model: str | None) -> bool:
    return script_model is not None and isinstance(body, dict) and body.get("model") != script_model
