"""Finding custom commands: Markdown files whose name (folders as `:` namespaces) is the command.

Folders, lowest precedence first (a later one replaces an earlier command of the same name):
`~/.claude/commands` (or `$CLAUDE_CONFIG_DIR/commands`), `$LATHE_CONFIG_DIR/commands`,
`<project>/.claude/commands`, `<project>/.lathe/commands`. `frontend/test.md` is
`/frontend:test`, as in Claude Code 2.x. A file that does not parse is skipped with a problem
line; a name that a built-in command has is skipped (the built-in wins) with a problem line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from app.memory.files import claude_user_dir
from app.memory.frontmatter import FrontmatterError, as_list, as_text, split_frontmatter

MAX_COMMAND_BYTES = 256_000
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

    @property
    def help(self) -> str:
        desc = self.description or _first_line(self.body) or "custom command"
        hint = f" {self.argument_hint}" if self.argument_hint else ""
        return f"{desc}{hint} ({self.source})"


@dataclass
class CommandSet:
    commands: dict[str, CustomCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> CustomCommand | None:
        return self.commands.get(name)

    def sorted(self) -> list[CustomCommand]:
        return [self.commands[k] for k in sorted(self.commands)]


def _first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:80]
    return ""


def command_folders(
    project_root: Path, config_dir: Path | None, env: Mapping[str, str] | None = None
) -> list[tuple[Path, str]]:
    folders = [(claude_user_dir(env) / "commands", "user")]
    if config_dir is not None:
        folders.append((config_dir / "commands", "user"))
    folders.append((project_root / ".claude" / "commands", "project"))
    folders.append((project_root / ".lathe" / "commands", "project"))
    return folders


def parse_command(path: Path, name: str, source: str) -> CustomCommand:
    """One command file; raises FrontmatterError or OSError with the reason it is unusable."""
    if path.stat().st_size > MAX_COMMAND_BYTES:
        raise FrontmatterError(f"larger than {MAX_COMMAND_BYTES} bytes")
    text = path.read_text(encoding="utf-8", errors="replace")
    fields, body = split_frontmatter(text)
    return CustomCommand(
        name=name,
        path=path,
        source=source,
        body=body,
        description=as_text(fields.get("description")).strip(),
        argument_hint=as_text(fields.get("argument-hint")).strip(),
        allowed_tools=tuple(as_list(fields.get("allowed-tools"))),
        model=as_text(fields.get("model")).strip(),
    )


def load_commands(
    project_root: Path,
    config_dir: Path | None,
    builtins: Collection[str] = (),
    env: Mapping[str, str] | None = None,
) -> CommandSet:
    out = CommandSet()
    for folder, source in command_folders(project_root, config_dir, env):
        try:
            files = sorted(folder.rglob("*.md")) if folder.is_dir() else []
        except OSError as exc:
            out.problems.append(f"commands folder {folder} unreadable: {exc}")
            continue
        for path in files:
            rel = path.relative_to(folder).with_suffix("")
            name = ":".join(rel.parts)
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
    return out


def load_for_session(
    project_root: str,
    builtins: Collection[str] = BUILTIN_COMMAND_NAMES,
    env: Mapping[str, str] | None = None,
) -> CommandSet:
    from app.config.paths import config_dir

    e = os.environ if env is None else env
    return load_commands(Path(project_root), config_dir(e), builtins, e)
