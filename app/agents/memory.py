"""An agent's `memory:` frontmatter: its own notes folder, kept across sessions.

Claude Code 2.1.332 (measured side by side, ext-fix6) gives an agent with `memory: project` the
folder `<project>/.claude/agent-memory/NAME/` (`user`: `~/.claude/agent-memory/NAME/`, `local`:
`<project>/.claude/agent-memory-local/NAME/`), and when the subagent starts it
- makes the folder;
- appends to its system prompt a long section on keeping that memory (kinds of memories, what not
  to keep, one file per memory with a frontmatter plus a one-line pointer in the `MEMORY.md`
  index, checking a memory before relying on it, a line on the scope) and the index itself
  under `## MEMORY.md` (or a line saying it is empty);
- adds Read, Write and Edit to an agent whose `tools:` list is narrower (its `disallowedTools`
  still remove them);
- lets Write and Edit into the folder without asking.
lathe does the same, in its own words here; the write permission is the subagent's own folder
only (app/permissions/decider.py `memory_dirs`), where Claude Code lets every agent-memory
folder be written by anyone, plan mode included.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from app.agents.definitions import AgentDefinition
from app.memory.files import claude_user_dir
from app.permissions.project_links import linked_outside

SCOPES = ("project", "user", "local")
MAX_LINES = 200  # the index only: lines after these are cut, and the prompt says so
MAX_BYTES = 25_000

_SCOPE_NOTES = {
    "project": "This memory is project scope and is shared with the team through version "
    "control: keep to what matters for this project.",
    "user": "This memory is user scope and follows you into every project: keep to what holds "
    "across projects.",
    "local": "This memory is local scope (not checked in): keep to this project on this machine.",
}

_GUIDE = """\
You have a memory that lasts across conversations, kept as files in `{folder}/`. The folder \
exists: write to it directly with the Write tool (no mkdir, no check that it exists).

Build it up over time, so that a later conversation knows who the user is, how they like to \
work with you, what to avoid or repeat, and the background of the work. When the user asks you \
to remember something, save it at once; when they ask you to forget something, find the entry \
and remove it.

## Kinds of memory

- user: the user's role, goals, knowledge and preferences, so you can pitch your help to them \
(never a judgement of them, nothing unrelated to the work).
- feedback: how the user wants you to work, both corrections ("don't do that") and quiet \
confirmations of an approach that worked. Lead with the rule, then a **Why:** line and a \
**How to apply:** line.
- project: facts about the ongoing work that the code and git history do not hold (who does \
what, why, by when; write dates as absolute dates). Lead with the fact, then **Why:** and \
**How to apply:** lines.
- reference: where information lives in outside systems (a tracker project, a dashboard, a \
channel) and what it is for.

## What not to keep

- Code patterns, architecture, file paths or project structure: reading the project tells that.
- Git history or who changed what: `git log` and `git blame` are the record.
- Fix recipes: the fix is in the code and its commit message.
- Anything the CLAUDE.md files already say.
- What only matters in this conversation: work in progress, temporary state.
This holds even when the user asks you to save such a thing: ask what was surprising about it \
and keep that.

## How to save a memory

1. Write it to its own file (`user_role.md`, `feedback_testing.md`, ...) starting with this \
frontmatter:

```markdown
---
name: short-kebab-case-name
description: one specific line, used later to decide whether it is relevant
metadata:
  type: user | feedback | project | reference
---

the memory itself; link related memories with [[their-name]]
```

2. Add a pointer to it in `MEMORY.md`, one line of under about 150 characters: \
`- [Title](file.md) — what it is about`. `MEMORY.md` is the index, with no frontmatter and no \
memory written into it directly.

- `MEMORY.md` is put into your context every time; lines after {max_lines} are cut off, so keep \
it short.
- Keep each file's name, description and type true to its content; organise by topic, not by \
date; update or remove a memory that turned out wrong; do not write a duplicate: update the \
one that exists.

## Using memories

- Look at them when they seem relevant or the user refers to earlier work; you must when the \
user asks you to check, recall or remember. If the user says to ignore memory, do not use it.
- A memory was true when it was written. Before you act on one, or recommend something because \
of one, check it against what is there now (a file it names exists, a function or flag it names \
is still found); if they disagree, trust what you see and fix or remove the memory.
- Memory is for later conversations; a plan or a task list is for the work of this one.

- {scope_note}"""


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


def prepare_folder(definition: AgentDefinition) -> None:
    """Make the agent's memory folder when its subagent starts (the prompt says it exists).
    A folder that cannot be made is left to the agent's own writes to report."""
    if definition.memory_dir:
        try:
            Path(definition.memory_dir).mkdir(parents=True, exist_ok=True)
        except OSError:
            pass


def memory_prompt(definition: AgentDefinition) -> str:
    """The agent's system prompt with its memory section, MEMORY.md read now (so notes written
    by an earlier subagent of the session are seen); the prompt as is without memory."""
    if not definition.memory_dir:
        return definition.system_prompt
    folder = definition.memory_dir
    note = _SCOPE_NOTES.get(definition.memory or "", "")
    section = ["# Persistent agent memory", ""]
    section.append(_GUIDE.format(folder=folder, max_lines=MAX_LINES, scope_note=note))
    index = Path(folder) / "MEMORY.md"
    # A project's agent memory is the repository's text: MEMORY.md (or the folder) linked to a
    # file outside the project (`~/.netrc`) is not read into the prompt (perm-r10 F3).
    project = definition.memory in ("project", "local")
    outside = linked_outside(index, Path(folder).parents[2]) if project else ""
    text = "" if outside else _read(index)
    section += ["", "## MEMORY.md", ""]
    section.append(text or "Your MEMORY.md is empty for now; memories you save appear here.")
    return definition.system_prompt.rstrip() + "\n\n" + "\n".join(section)


def index_in_prompt(definition: AgentDefinition) -> tuple[str, bool] | None:
    """The agent's MEMORY.md (path, whether all of it fits the prompt) when it exists: the
    subagent has seen it, so Write and Edit may change it without a Read first (as in Claude
    Code 2.1.332, measured); the staleness check still holds."""
    if not definition.memory_dir:
        return None
    path = Path(definition.memory_dir) / "MEMORY.md"
    try:
        if not path.is_file() or path.is_symlink():
            return None
        data = path.read_bytes()[: MAX_BYTES + 1]
    except OSError:
        return None
    whole = len(data) <= MAX_BYTES and len(data.splitlines()) <= MAX_LINES
    return str(path), whole


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
