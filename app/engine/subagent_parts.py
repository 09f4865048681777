"""The pieces a subagent's conversation is built from, each a thin wrapper over the session's.

- LabelledPrompter: the session's prompter; the question says which agent asks.
- SidechainWriter: the child's transcript, `<session>/subagents/agent-<id>.jsonl`, each line
  marked `isSidechain` with the agent's id (Claude Code's layout and marks).
- MirroredUsage: the child's own counters (its progress shows its tokens) that also count into
  the session's, so /cost and the result's usage include what subagents spent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.execution.interfaces import PermissionPrompt, Prompter
from app.model.usage import USAGE_FIELDS, ModelUsage, UsageTracker, cost_of, usage_fields
from app.transcript import TranscriptWriter, private_dirs


class LabelledPrompter:
    """Asks through the session's prompter; the question carries the agent's name (the dialog's
    title shows it before the call's summary)."""

    def __init__(self, inner: Prompter, label: str) -> None:
        self.inner = inner
        self.label = label

    async def ask(self, prompt: PermissionPrompt) -> None:
        prompt.agent = self.label
        prompt.summary = f"({self.label}) {prompt.summary}".rstrip()
        await self.inner.ask(prompt)


class SidechainWriter(TranscriptWriter):
    def __init__(self, path: Path, agent_id: str) -> None:
        super().__init__(path)
        self.agent_id = agent_id

    def append_message(
        self,
        session_id: str,
        message: Mapping[str, Any],
        tool_use_result: Any = None,
        **extra: Any,
    ) -> bool:
        """The session's line shape, marked as this agent's sidechain (Claude Code's fields)."""
        return super().append_message(
            session_id, message, tool_use_result, isSidechain=True, agentId=self.agent_id, **extra
        )

    def write_meta(self, meta: dict[str, Any]) -> None:
        """`agent-<id>.meta.json` beside the transcript: what started it (Claude Code keeps one)."""
        try:
            private_dirs(self.path.parent)
            meta_path = self.path.with_name(self.path.stem + ".meta.json")
            fd = os.open(meta_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(meta, ensure_ascii=False))
        except OSError:
            pass  # the transcript itself is what matters; its failure is reported on append


def sidechain_path(session_transcript: Path, agent_id: str) -> Path:
    """`<dir>/<session>.jsonl` -> `<dir>/<session>/subagents/agent-<id>.jsonl`."""
    return session_transcript.with_suffix("") / "subagents" / f"agent-{agent_id}.jsonl"


class MirroredUsage(UsageTracker):
    def __init__(self, parent: UsageTracker) -> None:
        super().__init__()
        self.parent = parent

    def add(self, model: str, usage: Any) -> float:
        cost = super().add(model, usage)
        counts = usage_fields(usage)
        # Not through parent.add: that would make this response the session's "last" one, and
        # the session's context accounting reads its own prompt size from that.
        entry = self.parent.by_model.setdefault(model, ModelUsage())
        for key in USAGE_FIELDS:
            setattr(entry, key, getattr(entry, key) + counts.get(key, 0))
        entry.requests += 1
        priced = cost_of(model, counts)
        if priced is None:
            entry.priced = False
        else:
            entry.cost_usd += priced
        return cost


def preloaded_skills(parent: Any, definition: Any) -> list[dict[str, Any]]:
    """The agent's frontmatter `skills`, each as Claude Code 2.1.332 puts it after the prompt in
    the subagent's first message (measured): a `<command-message>` header block, then the
    skill's folder and body (its variables filled, no arguments; its `!` lines are not run).
    A name the session has no skill for is left out with a notice."""
    from app.commands.arguments import fill_variables
    from app.engine.events import Notice

    skills = parent.parts.skills
    blocks: list[dict[str, Any]] = []
    for name in definition.skills:
        skill = skills.lookup(name) if skills is not None else None
        if skill is None:
            parent.emit(Notice(f"agent {definition.name}: no skill {name!r} to preload", "warning"))
            continue
        body = fill_variables(skill.body, str(skill.base_dir), str(parent.session_id))
        header = (
            f"<command-message>{skill.name}</command-message>\n"
            f"<command-name>{skill.name}</command-name>\n<skill-format>true</skill-format>"
        )
        blocks.append({"type": "text", "text": header})
        text = f"Base directory for this skill: {skill.base_dir}\n\n{body}"
        blocks.append({"type": "text", "text": text})
    return blocks
