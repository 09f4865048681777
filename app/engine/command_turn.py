"""The glue between a typed prompt and a turn: expand it, scope a command's (or a skill's) rules
and model to the turn.

The engine's side of the commands package (it was app/commands/turn_prompt.py): it emits the
engine's events, so it lives in the engine and app.commands stays below it (pyproject.toml)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.commands.loader import CommandSet
from app.commands.prompt import expand_prompt, match_command
from app.commands.scope import enter_command_scope
from app.engine.events import Notice, TurnEnded

if TYPE_CHECKING:
    from app.engine.session import Session
    from app.skills.catalog import SkillCatalog
    from tools.abort import AbortController


def model_only_skill(prompt: str, commands: CommandSet | None, skills: SkillCatalog | None) -> str:
    """The name of the skill `/name` names when only the model may invoke it
    (`user-invocable: false`), else "". Claude Code refuses such a `/name` locally."""
    text = prompt.strip()
    if commands is None or not text.startswith("/") or match_command(text, commands):
        return ""
    name = text[1:].partition(" ")[0].strip()
    skill = skills.lookup(name) if skills is not None and name else None
    if skill is None or skill.user_invocable or skill.is_command:
        return ""
    return str(skill.name)


def model_only_text(name: str) -> str:
    """Claude Code 2.1.332's words (measured), the `-p` result of `/name` for such a skill."""
    return (
        "This skill can only be invoked by Claude, not directly by users. "
        f'Ask Claude to use the "{name}" skill for you.'
    )


async def run_expanded_turn(
    session: Session,
    prompt: str,
    abort: AbortController,
    run_turn: Callable[..., Awaitable[TurnEnded]],
    attachments: Sequence[Mapping[str, Any]] = (),
) -> TurnEnded:
    commands = session.parts.commands
    skills = session.parts.skills
    refused = model_only_skill(prompt, commands, skills)
    if refused:
        # Refused here, as Claude Code does: nothing reaches the model or the transcript.
        text = model_only_text(refused)
        session.emit(Notice(text, "warning"))
        ended = TurnEnded(None, text, False, "success", 0, (), {"local_command": "custom"})
        session.emit(ended)
        return ended
    hit = match_command(prompt.strip(), commands)
    notices: list[str] = []
    leave = enter_command_scope(hit[0], session, notices) if hit else None
    if skills is not None:  # a Skill call during this turn scopes its rules to the turn
        skills.begin_turn(session, lambda text: session.emit(Notice(text, "warning")))
    try:
        # The UserPromptSubmit hooks judge the prompt as typed before anything of it runs: a
        # blocking hook keeps a command's `!` lines from running (Claude Code 2.1.332 runs the
        # hook first, measured, ext-r4 F9).
        from app.engine.prompt_verdict import prompt_verdict

        verdict = await prompt_verdict(session, prompt, abort)
        if verdict is not None and verdict.blocked:
            return await run_turn(session, prompt, abort, None, verdict)
        expanded = await expand_prompt(prompt, session, commands)
        for text in [*notices, *expanded.notices]:
            session.emit(Notice(text, "warning"))
        if expanded.stopped:
            # A `!` line was refused or failed: Claude Code 2.1.332 sends nothing and ends with
            # its words as the result (exit 0, subtype success; measured, ext-r4 F2). The
            # refused call is in permission_denials (Claude Code lists none: lathe says more).
            session.emit(Notice(expanded.stopped, "warning"))
            info = {"local_command": "custom"}
            denials = tuple(expanded.denials)
            ended = TurnEnded(None, expanded.stopped, False, "success", 0, denials, info)
            session.emit(ended)
            return ended
        content = [*expanded.content, *(dict(a) for a in attachments)]
        if attachments:  # an image alone: the API refuses the empty text block beside it
            content = [b for b in content if b.get("type") != "text" or b.get("text")]
        return await run_turn(session, prompt, abort, content, verdict)
    finally:
        if skills is not None:
            skills.end_turn()
        if leave is not None:
            leave()
