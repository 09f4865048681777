"""Turning what the user typed into the first user message of a turn.

`/name args` of a custom command becomes Claude Code's command message: a block naming the
command and its arguments, then the body with arguments substituted, `!`cmd`` lines replaced by
the command's output (run as a Bash call through the permission pipeline: rules, hooks, and in
`-p` a call that needs approval is denied; a line refused or failed stops the command before
anything is sent, as in Claude Code), and the files it `@`-names
attached. The command's `allowed-tools` become allow rules and its `model` the model for this
turn only (app/engine/session.py applies and removes them). A plain prompt gets its `@file`
attachments.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.commands.arguments import fill_variables, substitute
from app.commands.loader import CommandSet, CustomCommand
from app.commands.mentions import attach, confine_checked_in, mention_paths
from app.commands.ports import CommandSession
from tools.base import HookShaped

# As Claude Code: the `!` starts the text or follows whitespace (`a!`b`` is no command line).
# A fenced block opened with ```! is one command too, its whole text (Claude Code 2.1.332's
# pattern, read from its binary: ```!\s*\n?([\s\S]*?)\n?```; measured: the block's output
# replaces it). One pattern for both, scanned once, so no command's output is scanned again.
_BANG = re.compile(r"```!\s*\n?([\s\S]*?)\n?```|(?:^|(?<=\s))!`([^`\n]+)`")


@dataclass
class ExpandedPrompt:
    content: list[dict[str, Any]]
    command: CustomCommand | None = None
    allow_rules: tuple[str, ...] = ()
    model: str = ""
    notices: list[str] = field(default_factory=list)
    # A `!` line refused or failed (BangLineFailed): the turn ends with this text, unsent.
    stopped: str = ""
    denials: list[dict[str, Any]] = field(default_factory=list)


def match_command(prompt: str, commands: CommandSet | None) -> tuple[CustomCommand, str] | None:
    if commands is None or not prompt.startswith("/"):
        return None
    name, _, args = prompt[1:].partition(" ")
    command = commands.get(name.strip())
    return (command, args.strip()) if command is not None else None


class BangLineFailed(Exception):
    """A `!`cmd`` line that was refused or failed: the command (or skill) stops there, as in
    Claude Code 2.1.332 (measured, ext-r4 F2): nothing is sent to the model; `-p` ends with
    `message` as its result (subtype success), the Skill tool with it as an error result.
    `denial` is the refused call's permission_denials entry, None when it ran and failed."""

    def __init__(self, message: str, denial: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.denial = denial


async def _run_bang(command: str, pattern: str, session: CommandSession) -> str:
    """One `!`cmd`` (or ```! block, `pattern` its text as written) through the tool pipeline,
    as a Bash call the model might have made: the same rules, hooks and questions."""
    from app.execution.pipeline import run_tool_use

    block = {
        "type": "tool_use",
        "id": f"toolu_cmd_{uuid.uuid4().hex[:16]}",
        "name": "Bash",
        "input": {"command": command, "description": "custom command line"},
    }
    outcome = await run_tool_use(
        block,
        {"role": "assistant", "content": [block]},
        session.context,
        session.deps,
        lambda p: None,
    )
    content = outcome.result_block.get("content", "")
    if isinstance(content, list):
        content = "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    text = str(content).strip()
    if not outcome.result_block.get("is_error"):
        return text
    if not outcome.ran:
        # Refused (a rule, the mode, a hook, `-p` unable to ask): Claude Code's words.
        decision = outcome.decision
        why = (decision.message if decision is not None and decision.message else "") or text
        raise BangLineFailed(
            f'Shell command permission check failed for pattern "{pattern}": {why}',
            outcome.permission_denial,
        )
    # It ran and failed: Claude Code shows its output (stderr merged into stdout) after
    # "[stderr]", nothing when there was none.
    output = text
    if isinstance(outcome.data, HookShaped):
        output = str(outcome.data.hook_response().get("stdout", "")).strip()
    from app.commands.exit_semantics import exit_is_an_answer

    if exit_is_an_answer(command, getattr(outcome.data, "exit_code", None)):
        # grep's no match, diff's difference: an answer the prompt gets (ext-r5 F2).
        return output or "(Bash completed with no output)"
    shown = f"[stderr]\n{output}" if output else ""
    raise BangLineFailed(f'Shell command failed for pattern "{pattern}": {shown}')


async def run_bang_lines(body: str, session: CommandSession) -> str:
    """Each `!`cmd`` and ```! block of a command's or skill's body replaced by what running
    it gave. An empty block runs nothing. Raises BangLineFailed at the first line refused or
    failed; the lines after it never run."""
    parts: list[str] = []
    last = 0
    for match in _BANG.finditer(body):
        parts.append(body[last : match.start()])
        fenced, inline = match.group(1), match.group(2)
        command = inline if inline is not None else fenced
        if command.strip():
            parts.append(await _run_bang(command, match.group(0), session))
        last = match.end()
    parts.append(body[last:])
    return "".join(parts)


async def expand_prompt(
    prompt: str, session: CommandSession, commands: CommandSet | None
) -> ExpandedPrompt:
    cwd = Path(session.context.cwd)
    hit = match_command(prompt.strip(), commands)
    if hit is None:
        attached = await attach(mention_paths(prompt, cwd), session)
        return ExpandedPrompt(
            [{"type": "text", "text": prompt}, *attached.blocks], notices=attached.notices
        )
    command, args = hit
    session_id = session.session_id
    skill_dir = command.base_dir or None
    body = substitute(fill_variables(command.body, skill_dir, session_id), args, command.arguments)
    if command.base_dir:  # a skill: Claude Code names its folder, so its files can be found
        body = f"Base directory for this skill: {command.base_dir}\n\n{body}"
    expanded = ExpandedPrompt([], command, command.allowed_tools, command.model)
    try:
        text = await run_bang_lines(body, session)
    except BangLineFailed as failed:
        expanded.stopped = failed.message
        expanded.denials = [failed.denial] if failed.denial is not None else []
        return expanded
    header = (
        f"<command-message>{command.name}</command-message>\n"
        f"<command-name>/{command.name}</command-name>"
    )
    if args:  # Claude Code 2.1.332 leaves the tag out when none were given (measured)
        header += f"\n<command-args>{args}</command-args>"
    paths = mention_paths(text, cwd)
    if command.source == "project":
        from app.permissions.trust import is_trusted

        project = str(session.context.project_dir or cwd)
        paths, refused = confine_checked_in(paths, project, is_trusted(project), command.name)
        expanded.notices.extend(refused)
    attached = await attach(paths, session)
    expanded.content = [
        {"type": "text", "text": header},
        {"type": "text", "text": text},
        *attached.blocks,
    ]
    expanded.notices.extend(attached.notices)
    return expanded
