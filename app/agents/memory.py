"""An agent's `memory:` frontmatter: its own notes folder, read into the subagent's prompt.

Claude Code 2.1.332 (measured, ext-r3 F10) gives an agent with `memory: project` a section in
its system prompt naming `<project>/.claude/agent-memory/NAME/` and holding that folder's
`MEMORY.md` under a `## MEMORY.md` heading; `user` is `~/.claude/agent-memory/NAME/`, `local`
`<project>/.claude/agent-memory-local/NAME/`. lathe reads the same file into the same place, in
its own words, when the session starts. It grants nothing: writing to the folder goes through
the permission rules as any other write does (Claude Code's prompt tells the agent to write
there; lathe's says the rules apply).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from app.agents.definitions import AgentDefinition
from app.memory.files import claude_user_dir

SCOPES = ("project", "user", "local")
MAX_LINES = 200  # the first lines only: the prompt is not a place for a whole notebook
MAX_BYTES = 25_000


def memory_folder(
    scope: str, name: str, project_root: Path, env: Mapping[str, str] | None
) -> Path | None:
    folder_name = name.replace(":", "-").replace("/", "-")
    if scope == "project":
        return project_root / ".claude" / "agent-memory" / folder_name
    if scope == "local":
        return project_root / ".claude" / "agent-memory-local" / folder_name
    if scope == "user":
        return claude_user_dir(env) / "agent-memory" / folder_name
    return None


def with_memory(
    definition: AgentDefinition, project_root: Path, env: Mapping[str, str] | None
) -> AgentDefinition:
    """The definition with its memory section appended to its prompt (unchanged without one)."""
    scope = definition.memory or ""
    folder = memory_folder(scope, definition.name, project_root, env)
    if folder is None:
        return definition
    section = [
        "# Persistent agent memory",
        "",
        f"You keep notes for later sessions in `{folder}/` ({scope} scope). Read them before you "
        "start; to remember something, write or update MEMORY.md there (writes follow the "
        "session's permission rules like any other).",
    ]
    text = _read(folder / "MEMORY.md")
    if text:
        section += ["", "## MEMORY.md", "", text]
    prompt = definition.system_prompt.rstrip() + "\n\n" + "\n".join(section)
    return replace(definition, system_prompt=prompt)


def _read(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES)
    except OSError:
        return ""
    if b"\x00" in data:
        return ""  # a binary file never goes into a prompt
    lines = data.decode("utf-8", errors="replace").splitlines()
    return "\n".join(lines[:MAX_LINES]).strip()
