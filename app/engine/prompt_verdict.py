"""The UserPromptSubmit hooks' verdict on a prompt, asked once per prompt: by a custom command's
turn before its `!` lines run (app/engine/command_turn.py), else by the turn itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.engine.session import Session
    from app.hooks.results import PromptHookResult
    from tools.abort import AbortController


async def prompt_verdict(
    session: Session, prompt: str, abort: AbortController
) -> PromptHookResult | None:
    """What the UserPromptSubmit hooks say of `prompt` (None: no hooks, or interrupted already
    during the SessionStart hooks: no prompt hook for a prompt not sent)."""
    hooks = session.parts.session_hooks
    if hooks is None or abort.signal.aborted:
        return None
    return await hooks.user_prompt_submit(prompt, session.context)
