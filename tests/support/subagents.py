"""Answering requests by which conversation they belong to, for subagents running side by side.

Each conversation (the session's, each subagent's) is known by its first user message: the
session's prompt, or the prompt the Agent call gave the subagent. `route(fake, {key: turns})`
answers a request whose first user message contains `key` with that key's next turn.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from app.model.scenario import Turn, text_turn
from tests.fakeapi.server import FakeAPI


def first_user_text(body: Any) -> str:
    messages = body.get("messages", []) if isinstance(body, dict) else []
    first = next((m for m in messages if m.get("role") == "user"), None)
    if first is None:
        return ""
    content = first.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))


def route(fake: FakeAPI, scripts: Mapping[str, Iterable[Turn]]) -> None:
    queues = {key: deque(turns) for key, turns in scripts.items()}
    lock = threading.Lock()

    def answer(body: Any) -> Turn | None:
        text = first_user_text(body)
        with lock:
            for key, queue in queues.items():
                if key in text:
                    return queue.popleft() if queue else text_turn(f"({key}: no more turns)")
        return None

    fake.router = answer


def requests_of(fake: FakeAPI, key: str) -> list[Any]:
    """The bodies of the requests of one conversation, in the order they came."""
    return [b for b in fake.bodies() if key in first_user_text(b)]
