"""The glue between a typed prompt and a turn: expand it, scope a command's (or a skill's) rules
and model to the turn."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from app.commands.prompt import expand_prompt, match_command
from app.commands.scope import enter_command_scope


async def run_expanded_turn(
    session: Any,
    prompt: str,
    abort: Any,
    run_turn: Callable[..., Awaitable[Any]],
    attachments: Sequence[Mapping[str, Any]] = (),
) -> Any:
    from app.engine.events import Notice

    commands = session.parts.commands
    hit = match_command(prompt.strip(), commands)
    notices: list[str] = []
    leave = enter_command_scope(hit[0], session, notices) if hit else None
    skills = session.parts.skills
    if skills is not None:  # a Skill call during this turn scopes its rules to the turn
        skills.begin_turn(session)
    try:
        expanded = await expand_prompt(prompt, session, commands)
        for text in [*notices, *expanded.notices]:
            session.emit(Notice(text, "warning"))
        content = [*expanded.content, *(dict(a) for a in attachments)]
        if attachments:  # an image alone: the API refuses the empty text block beside it
            content = [b for b in content if b.get("type") != "text" or b.get("text")]
        return await run_turn(session, prompt, abort, content)
    finally:
        if skills is not None:
            skills.end_turn()
        if leave is not None:
            leave()
