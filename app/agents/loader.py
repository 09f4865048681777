"""Finding agent definitions: Markdown files with a frontmatter, as Claude Code reads them.

    ---
    name: code-reviewer
    description: Reviews changes for bugs and missing tests.
    tools: Read, Grep, Glob, Bash      # absent: every tool
    model: sonnet                      # sonnet | opus | haiku | inherit | a model id
    ---
    You are a focused code reviewer...  (the body is the system prompt)

Folders, lowest precedence first (a later definition replaces an earlier one of the same name):
the built-ins, `~/.claude/agents` (or `$CLAUDE_CONFIG_DIR/agents`), `$LATHE_CONFIG_DIR/agents`,
`<project>/.claude/agents`, `<project>/.lathe/agents`, each searched with its subfolders
(symlinked ones too, as for commands; a link back up is not followed). A file
with no frontmatter (a README) is not a definition and is passed over; one whose frontmatter does
not parse, or lacks `name` or `description`, is skipped with a problem line naming it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.agents.definitions import BUILT_IN_AGENTS, AgentDefinition
from app.agents.hooks import parse_agent_hooks
from app.agents.memory import SCOPES, memory_folder
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
from tools.subagent import AgentSummary

MAX_AGENT_BYTES = 256_000
# Words joined by single spaces (`name: "spaced agent"`): Claude Code 2.1.332 lists and runs
# such an agent (measured, ext-r3 F7).
_NAME = re.compile(r"^[\w.:-]+(?: [\w.:-]+)*$")


@dataclass
class AgentSet:
    agents: dict[str, AgentDefinition] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> AgentDefinition | None:
        found = self.agents.get(name)
        if found is None:
            # Claude Code matches agent types case-sensitively, but a model writing "explore"
            # for "Explore" means it; only an unambiguous case-insensitive match is taken.
            folded = [a for k, a in self.agents.items() if k.lower() == name.lower()]
            found = folded[0] if len(folded) == 1 else None
        return found

    def all(self) -> list[AgentDefinition]:
        return list(self.agents.values())

    def summaries(self) -> tuple[AgentSummary, ...]:
        """The agent types as the Agent tool's description lists them."""
        return tuple(AgentSummary(a.name, a.description, a.tools_text()) for a in self.all())


def agent_folders(
    project_root: Path, config_dir: Path | None, env: Mapping[str, str] | None = None
) -> list[tuple[Path, str]]:
    folders = [(claude_user_dir(env) / "agents", "user")]
    if config_dir is not None:
        folders.append((config_dir / "agents", "user"))
    folders.append((project_root / ".claude" / "agents", "project"))
    folders.append((project_root / ".lathe" / "agents", "project"))
    return folders


def parse_agent(path: Path, source: str) -> AgentDefinition | None:
    """One file; None when it has no frontmatter at all. Raises FrontmatterError or OSError
    with the reason a definition is unusable."""
    if path.stat().st_size > MAX_AGENT_BYTES:
        raise FrontmatterError(f"larger than {MAX_AGENT_BYTES} bytes")
    text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
    if not text.lstrip("\ufeff").startswith("---"):
        return None
    fields, body = split_frontmatter(text.lstrip("\ufeff"))
    name = as_text(fields.get("name")).strip()
    description = as_text(fields.get("description")).strip()
    if not name:
        raise FrontmatterError("no `name` in its frontmatter")
    if not _NAME.match(name):
        raise FrontmatterError(f"{name!r} is not an agent name")
    if not description:
        raise FrontmatterError("no `description` in its frontmatter")
    tools = _tool_list(fields, "tools")
    model = as_text(fields.get("model")).strip() or None
    return AgentDefinition(
        name=name,
        # Some published agents write their examples with `\n` escapes on one line.
        description=description.replace("\\n", "\n"),
        system_prompt=body.strip(),
        tools=None if tools is None or tools == ["*"] else tuple(tools),
        disallowed=tuple(_tool_list(fields, "disallowedTools") or ()),
        model=model,
        source=source,
        path=str(path),
        permission_mode=as_text(fields.get("permissionMode")).strip() or None,
        skills=tuple(as_list(fields.get("skills"))),
        memory=as_text(fields.get("memory")).strip().lower() or None,
        hooks_json=parse_agent_hooks(text.lstrip("\ufeff"), str(path)),
        max_turns=_max_turns(fields.get("maxTurns")),
    )


def _max_turns(value: FrontValue | None) -> int | None:
    """`maxTurns: 5`: a positive whole number; anything else is a reason to skip the file (a
    limit the user set must not be dropped silently)."""
    if value is None:
        return None
    text = as_text(value).strip()
    if not text.isdigit() or int(text) < 1:
        raise FrontmatterError(f"maxTurns {text!r} is not a positive whole number")
    return int(text)


def _tool_list(fields: Mapping[str, object], key: str) -> list[str] | None:
    if key not in fields:
        return None
    value = fields[key]
    if isinstance(value, str | list):
        return as_list(value)
    return []


def load_agents(
    project_root: Path, config_dir: Path | None, env: Mapping[str, str] | None = None
) -> AgentSet:
    out = AgentSet({a.name: a for a in BUILT_IN_AGENTS})
    confinement = ProjectConfinement(project_root, env)
    for folder, source in agent_folders(project_root, config_dir, env):
        try:
            # Symlinked sub-folders are followed, never a link back up (as for commands).
            files = markdown_files(folder)
        except OSError as exc:
            out.problems.append(f"agents folder {folder} unreadable: {exc}")
            continue
        for path in files:
            refused = confinement.refusal(path) if source == "project" else ""
            if refused:
                out.problems.append(f"agent {path} skipped: {refused}")
                continue
            try:
                definition = parse_agent(path, source)
            except (OSError, FrontmatterError) as exc:
                out.problems.append(f"agent {path} skipped: {exc}")
                continue
            if definition is not None:
                out.agents[definition.name] = definition
    return out


def add_plugin_agents(out: AgentSet, plugins: Sequence[Any]) -> None:
    """Each plugin's `agents/**/*.md` as the type `PLUGIN:NAME` (app/config/plugins.py)."""
    for plugin in plugins:
        files: list[Path] = []
        # Its manifest's `agents` paths too (files or folders: VoltAgent lists its files so).
        for folder in (plugin.root / "agents", *getattr(plugin, "agent_paths", ())):
            if folder.is_file():
                files.append(folder)
                continue
            try:
                files.extend(markdown_files(folder))
            except OSError as exc:
                out.problems.append(f"plugin agents folder {folder} unreadable: {exc}")
        for path in dict.fromkeys(files):
            try:
                definition = parse_agent(path, "plugin")
            except FrontmatterError as exc:
                definition = _plugin_fallback(path, plugin.name)
                if definition is None:
                    out.problems.append(f"plugin agent {path} skipped: {exc}")
                    continue
                out.problems.append(
                    f"plugin agent {path}: {exc}; loaded as {plugin.name}:{definition.name} "
                    "with every tool and the session's model (as Claude Code loads it)"
                )
            except OSError as exc:
                out.problems.append(f"plugin agent {path} skipped: {exc}")
                continue
            if definition is not None:
                name = f"{plugin.name}:{definition.name}"
                out.agents[name] = replace(definition, name=name)


def _plugin_fallback(path: Path, plugin_name: str) -> AgentDefinition | None:
    """A plugin's agent whose frontmatter does not read (Anthropic's plugin-dev agents: a
    `description:` running on over unindented `<example>` lines) is still an agent in Claude
    Code 2.1.332 (measured, ext-r3 F9): named by its file, "Agent from PLUGIN plugin", every
    tool, the session's model, the text after the closing `---` as its prompt. (A user's or
    project's such file is not loaded, there as here.) The subagent's calls are checked by the
    same rules as the parent's, so every tool widens no permission."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
    except OSError:
        return None
    try:
        split_frontmatter(text.lstrip("\ufeff"))
    except FrontmatterError:
        pass  # the frontmatter itself does not read: Claude Code's fallback below
    else:
        return None  # it reads but lacks a field: skipped, its `tools:` never dropped
    lines = text.lstrip("\ufeff").split("\n")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if not lines or lines[0].strip() != "---" or end is None or not _NAME.match(path.stem):
        return None
    return AgentDefinition(
        name=path.stem,
        description=f"Agent from {plugin_name} plugin",
        system_prompt="\n".join(lines[end + 1 :]).strip(),
        source="plugin",
        path=str(path),
    )


def load_for_session(
    project_root: str, env: Mapping[str, str] | None = None, plugins: Sequence[Any] = ()
) -> AgentSet:
    from app.config.paths import config_dir

    e = os.environ if env is None else env
    out = load_agents(Path(project_root), config_dir(e), e)
    add_plugin_agents(out, plugins)
    for name, definition in list(out.agents.items()):
        if definition.memory is None:
            continue
        if definition.memory not in SCOPES:
            out.problems.append(
                f"agent {name}: memory {definition.memory!r} is not one of {', '.join(SCOPES)}"
            )
            continue
        folder = memory_folder(definition.memory, definition.name, Path(project_root), e)
        if folder is not None:
            out.agents[name] = replace(definition, memory_dir=str(folder))
    return out
