"""A session's custom commands and skills, loaded together: a skill is offered as `/name` and a
command as a skill, so both sets are finished only once each knows the other.

This step lives in the skills package, above the commands package (which knows its skills only
through its `SkillAliases` port), so the commands package never imports the skills package.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.commands.arguments import fill_plugin_variables
from app.commands.loader import (
    BUILTIN_COMMAND_NAMES,
    CommandSet,
    add_plugin_commands,
    load_commands,
)
from app.config.paths import config_dir
from app.skills.loader import SkillSet, add_command_skills, add_skill_commands, load_skills


def load_for_session(
    project_root: str,
    builtins: Collection[str] = BUILTIN_COMMAND_NAMES,
    env: Mapping[str, str] | None = None,
    plugins: Sequence[Any] = (),
    extra_dirs: Sequence[str] = (),
    sources: Collection[str] | None = None,
) -> tuple[CommandSet, SkillSet]:
    """`extra_dirs`: `--add-dir` folders; their `.claude/skills` load (Claude Code loads an added
    folder's skills, not its commands or agents)."""
    e = os.environ if env is None else env
    commands = load_commands(Path(project_root), config_dir(e), builtins, e, sources)
    add_plugin_commands(commands, plugins)
    skills = load_skills(Path(project_root), config_dir(e), e, plugins, extra_dirs, sources)
    commands.skills = skills
    _fill_plugin_bodies(commands, skills, plugins)
    add_skill_commands(commands, builtins)
    add_command_skills(commands)
    return commands, skills


def _fill_plugin_bodies(commands: CommandSet, skills: SkillSet, plugins: Sequence[Any]) -> None:
    """Plugin commands' and skills' `${CLAUDE_PLUGIN_ROOT}`/`${CLAUDE_PLUGIN_DATA}`, filled in
    once: they never change during a session. Their `allowed-tools` too, as Claude Code 2.1.332
    fills them (measured, ext-r3 F1: `Bash(${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh:*)` of
    Anthropic's ralph-wiggum covers the plugin's script); the rule names only the plugin's own
    folder, which a literal path could name as well, so nothing is widened."""
    for plugin in plugins:
        prefix = f"{plugin.name}:"

        def rules(item: Any, plugin: Any = plugin) -> tuple[str, ...]:
            return tuple(fill_plugin_variables(rule, plugin) for rule in item.allowed_tools)

        for name, command in list(commands.commands.items()):
            if command.source == "plugin" and name.startswith(prefix):
                filled = fill_plugin_variables(command.body, plugin)
                commands.commands[name] = replace(
                    command, body=filled, allowed_tools=rules(command)
                )
        for name, skill in list(skills.skills.items()):
            if skill.source == "plugin" and name.startswith(prefix):
                body = fill_plugin_variables(skill.body, plugin)
                skills.skills[name] = replace(skill, body=body, allowed_tools=rules(skill))
