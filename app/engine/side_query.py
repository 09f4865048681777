"""One-off questions to a small, fast model (WebFetch answers its prompt over a page with it).

Only a real API backend can answer: the offline models cannot, and tools then do without. The
small model is `ANTHROPIC_SMALL_FAST_MODEL` (Claude Code's variable) or Claude Haiku; its usage
counts in the session's totals like any other request.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.engine.session import Session

DEFAULT_SMALL_MODEL = "claude-haiku-4-5"
MAX_TOKENS = 2048


def small_model() -> str:
    return os.environ.get("ANTHROPIC_SMALL_FAST_MODEL", "").strip() or DEFAULT_SMALL_MODEL


def make_side_query(session: Session) -> Callable[[str], Awaitable[str]] | None:
    if session.backend.kind != "api":
        return None

    async def ask(prompt: str) -> str:
        model = small_model()
        response: Any = await session.backend.client.messages.create(
            model=model,
            max_tokens=MAX_TOKENS,
            messages=[{"role": "user", "content": prompt}],
        )
        session.usage.add(model, response.usage)
        return "".join(b.text for b in response.content if getattr(b, "type", "") == "text")

    return ask


def make_hook_asker(
    session: Session,
) -> Callable[[str, str, str], Awaitable[str]] | None:
    """What answers the session's prompt hooks (app/hooks/remote.py): one request with the
    hook's system text and question, to the hook's model or the small fast one."""
    if session.backend.kind != "api":
        return None

    async def ask(system: str, prompt: str, model: str) -> str:
        chosen = model or small_model()
        response: Any = await session.backend.client.messages.create(
            model=chosen,
            max_tokens=MAX_TOKENS,
            system=system,
            messages=[{"role": "user", "content": prompt}],
        )
        session.usage.add(chosen, response.usage)
        return "".join(b.text for b in response.content if getattr(b, "type", "") == "text")

    return ask
