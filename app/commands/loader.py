"""Finding custom commands: Markdown files whose name (folders as `:` namespaces) is the command.

Folders, lowest precedence first (a later one replaces an earlier command of the same name):
`<project>/.claude/commands`, `<project>/.lathe/commands`, `~/.claude/commands` (or
`$CLAUDE_CONFIG_DIR/commands`), `$LATHE_CONFIG_DIR/commands`: the user's win, as in Claude Code.
`frontend/test.md` is `/frontend:test`, as in Claude Code 2.x. A name with a space (`has
space.md`) is reached through the Skill tool only, as in Claude Code; a file named `.md` has no
name and is not a command. A file that does not parse is skipped with a problem line; a name
that a built-in command has is skipped (the built-in wins) with a problem line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from app.memory.files import claude_user_dir
from app.memory.frontmatter import (
    FrontmatterError,
    FrontValue,
    as_list,
    as_text,
    split_frontmatter,
)
from app.memory.markdown_walk import markdown_files
from app.permissions.project_links import ProjectConfinement

# Claude Code 2.1.332 lists a SKILL.md of 999,991 bytes, not one of 1,048,568 (measured, ext-r3
# F12); it takes commands up to somewhere between 1.05 and 1.5 MB, lathe to the skills' limit.
MAX_COMMAND_BYTES = 1_000_000
# lathe's own slash commands (the TUI's list, app/tui/commands.py; a test keeps them equal):
# a custom command of the same name is ignored, as Claude Code's built-ins win too.
BUILTIN_COMMAND_NAMES = frozenset(
    {
        "help",
        "clear",
        "model",
        "permissions",
        "resume",
        "theme",
        "cost",
        "context",
        "compact",
        "tools",
        "mcp",
        "quit",
    }
)
_NAME = re.compile(r"^[\w.:-]+$")
_SPACED = re.compile(r"^[\w.:-]+(?: [\w.:-]+)*$")
_ARG_NAME = re.compile(r"^[A-Za-z_]\w*$")


@dataclass(frozen=True)
class CustomCommand:
    name: str
    path: Path
    source: str  # "user" or "project"
    body: str
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str = ""
    # A skill typed as `/name` (app/skills/loader.py): its body is preceded by its folder.
    base_dir: str = ""
    # `disable-model-invocation: true`: not offered to the model through the Skill tool.
    model_invocable: bool = True
    # `arguments: [target, mode]`: `$target`, `$mode` in the body are the first and second
    # argument (Claude Code 2.1.332's named arguments, measured, ext-r4 F17).
    arguments: tuple[str, ...] = ()

    @property
    def help(self) -> str:
        desc = self.description or first_line(self.body) or "custom command"
        hint = f" {self.argument_hint}" if self.argument_hint else ""
        kind = f"skill, {self.source}" if self.base_dir else self.source
        return f"{desc}{hint} ({kind})"


class NamedSkill(Protocol):
    @property
    def name(self) -> str: ...


class SkillAliases(Protocol):
    """What a command set asks of its skills (app/skills/loader.py's SkillSet implements it): a
    port here, so the commands package names nothing of the skills package above it."""

    def get(self, name: str) -> NamedSkill | None: ...


@dataclass
class CommandSet:
    commands: dict[str, CustomCommand] = field(default_factory=dict)
    # Commands whose names hold a space: not `/name`, offered through the Skill tool only.
    skill_only: dict[str, CustomCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    skills: SkillAliases | None = None  # the session's SkillSet (app/skills/loader.py), when loaded

    def get(self, name: str) -> CustomCommand | None:
        found = self.commands.get(name)
        if found is None and self.skills is not None:
            # A skill's frontmatter name reaches its `/folder-name` command, as in Claude Code.
            skill = self.skills.get(name)
            found = self.commands.get(skill.name) if skill is not None else None
            if found is not None and not found.base_dir:
                found = None  # a custom command took that name; the alias does not reach it
        return found

    def sorted(self) -> list[CustomCommand]:
        return [self.commands[k] for k in sorted(self.commands)]


def first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:80]
    return ""


def command_folders(
    project_root: Path,
    config_dir: Path | None,
    env: Mapping[str, str] | None = None,
    kind: str = "commands",
    sources: Collection[str] | None = None,
) -> list[tuple[Path, str]]:
    """The folders of `kind` ("commands", or "skills" for app/skills), lowest precedence first.
    The user's come last: a command or skill in `~/.claude/...` wins over a project's of the same
    name, as in Claude Code 2.1.332 (measured), so a cloned repository cannot shadow `/commit`.
    `sources` (--setting-sources): only these scopes' folders, as Claude Code loads only the
    chosen sources' commands and skills (ext-r5 F8); None: all."""
    folders = [
        (project_root / ".claude" / kind, "project"),
        (project_root / ".lathe" / kind, "project"),
        (claude_user_dir(env) / kind, "user"),
    ]
    if config_dir is not None:
        folders.append((config_dir / kind, "user"))
    if sources is not None:
        folders = [(folder, scope) for folder, scope in folders if scope in sources]
    return folders


def read_markdown(path: Path) -> tuple[dict[str, FrontValue], str]:
    """A command or skill file's frontmatter and body; raises FrontmatterError or OSError."""
    if path.stat().st_size > MAX_COMMAND_BYTES:
        raise FrontmatterError(f"larger than {MAX_COMMAND_BYTES} bytes")
    text = path.read_text(encoding="utf-8", errors="replace")
    return split_frontmatter(text, unclosed_is_body=True)


def parse_command(path: Path, name: str, source: str) -> CustomCommand:
    """One command file; raises FrontmatterError or OSError with the reason it is unusable."""
    fields, body = read_markdown(path)
    return command_from(fields, body, path, name, source)


def command_from(
    fields: Mapping[str, FrontValue], body: str, path: Path, name: str, source: str
) -> CustomCommand:
    """The frontmatter keys commands and skills share, read the same way for both."""
    return CustomCommand(
        name=name,
        path=path,
        source=source,
        body=body,
        description=as_text(fields.get("description")).strip(),
        argument_hint=as_text(fields.get("argument-hint")).strip(),
        allowed_tools=tuple(as_list(fields.get("allowed-tools"))),
        model=as_text(fields.get("model")).strip(),
        model_invocable=as_text(fields.get("disable-model-invocation")).strip().lower()
        not in ("true", "yes", "on", "1"),
        # A list, or names split by spaces (`arguments: target mode`: Claude Code 2.1.332 reads
        # both, measured by ext-fix6b).
        arguments=tuple(
            n for a in as_list(fields.get("arguments")) for n in a.split() if _ARG_NAME.match(n)
        ),
    )


def load_commands(
    project_root: Path,
    config_dir: Path | None,
    builtins: Collection[str] = (),
    env: Mapping[str, str] | None = None,
    sources: Collection[str] | None = None,
) -> CommandSet:
    out = CommandSet()
    folders = command_folders(project_root, config_dir, env, sources=sources)
    confinement = ProjectConfinement(project_root, env)
    listed: list[tuple[Path, str, list[Path]]] = []
    for folder, source in folders:
        try:
            listed.append((folder, source, markdown_files(folder)))
        except OSError as exc:
            out.problems.append(f"commands folder {folder} unreadable: {exc}")
    # The same file reached through two links (the user's and the project's `shared` pointing
    # at one dotfiles folder) is one command, the higher-precedence folder's (Claude Code: the
    # project's copy is not listed).
    owner: dict[str, Path] = {}
    for folder, _source, files in reversed(listed):
        for path in files:
            owner.setdefault(os.path.realpath(path), folder)
    for folder, source, files in listed:
        for path in files:
            if path.name == ".md":
                continue  # no name (Claude Code lists nothing for it)
            if owner.get(os.path.realpath(path), folder) != folder:
                continue
            refused = confinement.refusal(path) if source == "project" else ""
            if refused:
                out.problems.append(f"custom command {path} skipped: {refused}")
                continue
            rel = path.relative_to(folder).with_suffix("")
            name = ":".join(rel.parts)
            if _SPACED.match(name) and not _NAME.match(name):
                # No `/has space` can be typed: offered through the Skill tool only.
                try:
                    out.skill_only[name] = parse_command(path, name, source)
                except (OSError, FrontmatterError) as exc:
                    out.problems.append(f"custom command {path} skipped: {exc}")
                else:
                    out.commands.pop(name, None)
                continue
            if not _NAME.match(name):
                out.problems.append(
                    f"custom command {path} skipped: {name!r} is not a command name"
                )
                continue
            if name in builtins:
                out.problems.append(
                    f"custom command /{name} ({path}) is ignored: /{name} is a built-in command"
                )
                continue
            try:
                out.commands[name] = parse_command(path, name, source)
            except (OSError, FrontmatterError) as exc:
                out.problems.append(f"custom command {path} skipped: {exc}")
            else:
                out.skill_only.pop(name, None)
    return out


def add_plugin_commands(out: CommandSet, plugins: Sequence[Any]) -> None:
    """Each plugin's `commands/**/*.md` as `/PLUGIN:NAME` (app/config/plugins.py), and the
    files or folders its manifest's `commands` names (a file is named by its stem)."""
    for plugin in plugins:
        places = [plugin.root / "commands", *getattr(plugin, "command_paths", ())]
        for folder in places:
            if folder.is_file():
                files, base = [folder], folder.parent
            else:
                try:
                    files, base = markdown_files(folder), folder
                except OSError as exc:
                    out.problems.append(f"plugin commands folder {folder} unreadable: {exc}")
                    continue
            for path in files:
                rel = ":".join(path.relative_to(base).with_suffix("").parts)
                if not _NAME.match(rel):
                    out.problems.append(f"plugin command {path} skipped: {rel!r} is not a name")
                    continue
                name = f"{plugin.name}:{rel}"
                try:
                    out.commands[name] = parse_command(path, name, "plugin")
                except (OSError, FrontmatterError) as exc:
                    out.problems.append(f"plugin command {path} skipped: {exc}")
