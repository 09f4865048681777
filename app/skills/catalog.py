"""The session's skills as the Skill tool sees them (tools/skill.py's SkillCatalog).

Invoking a skill substitutes its arguments as a custom command's are (app/commands/arguments.py)
and enters its scope (app/commands/scope.py): `allowed-tools` become allow rules and `model` the
model, until the user's turn ends (`end_turn`, called by app/engine/command_turn.py), as Claude
Code keeps a skill's permissions for the rest of the turn. The scope needs the session, which the
turn hands over (`begin_turn`); outside a turn a skill loads without its scope and without
running its `!` lines.
"""

from __future__ import annotations

from collections.abc import Callable

from app.commands.arguments import fill_variables, substitute
from app.commands.ports import CommandSession
from app.commands.scope import enter_command_scope
from app.skills.loader import Skill, SkillSet
from tools.base import ToolError


def skill_text(skill: Skill, body: str) -> str:
    """What the model follows: the folder (so it can read the skill's files), then `body` (the
    skill's body, its arguments substituted and its `!` lines run). A custom command offered as
    a skill has no folder of its own."""
    if skill.is_command:
        return body
    return f"Base directory for this skill: {skill.base_dir}\n\n{body}"


class SkillCatalog:
    def __init__(self, skills: SkillSet) -> None:
        self.skills = skills
        self._session: CommandSession | None = None
        self._leave: list[Callable[[], None]] = []
        self._warn: Callable[[str], None] = lambda _text: None

    def lookup(self, name: str) -> Skill | None:
        return self.skills.get(name)

    async def invoke(self, name: str, args: str) -> str:
        skill = self.skills.get(name)
        if skill is None:
            raise KeyError(name)
        session = self._session
        session_id = session.session_id if session is not None else ""
        skill_dir = None if skill.is_command else str(skill.base_dir)
        body = substitute(fill_variables(skill.body, skill_dir, session_id), args, skill.arguments)
        if session is None:
            return skill_text(skill, body)
        if skill.allowed_tools:
            notices: list[str] = []
            self._leave.append(enter_command_scope(skill, session, notices, use_model=False))
            for text in notices:
                self._warn(text.replace(f"/{skill.name}:", f"skill {name}:"))
        if skill.hooks:
            self._leave.append(_enter_skill_hooks(skill, session, self._warn))
        # `!`cmd`` lines run as they do for `/name` (Claude Code runs them for the tool too,
        # measured), after the scope is entered: the skill's own allowed-tools cover them.
        from app.commands.prompt import BangLineFailed, run_bang_lines

        try:
            return skill_text(skill, await run_bang_lines(body, session))
        except BangLineFailed as failed:
            # No body is loaded; the model reads Claude Code's words as an error result.
            raise ToolError(failed.message) from None

    def begin_turn(self, session: CommandSession, warn: Callable[[str], None]) -> None:
        """`warn` shows a warning to the user (the turn's caller emits it as the engine's Notice:
        the skills package stays below the engine, so it names no engine event)."""
        self._session = session
        self._warn = warn

    def end_turn(self) -> None:
        """Undo every skill scope this turn entered, newest first."""
        leave, self._leave = self._leave, []
        for undo in reversed(leave):
            undo()
        self._session = None


def _enter_skill_hooks(
    skill: Skill, session: CommandSession, warn: Callable[[str], None]
) -> Callable[[], None]:
    """The skill's own `hooks:` run until its scope ends (the user's turn), as Claude Code runs
    a skill's hooks once it is loaded. A project skill's hooks are the repository's code: they
    run only where the project's own hooks would (a trusted folder, or headless)."""
    from app.config.hooks import HookSource, parse_hook_sources

    rules = session.scope_rules
    if skill.source == "project" and not (rules is not None and rules.context.trusted):
        warn(f"skill {skill.name}: hooks ignored: this folder is not trusted")
        return lambda: None
    config = parse_hook_sources([HookSource("skill", str(skill.path), skill.hooks)], trusted=True)
    undo = [runner.add_handlers(config.handlers) for runner in session.hook_hosts()]

    def leave() -> None:
        for remove in reversed(undo):
            remove()

    return leave
