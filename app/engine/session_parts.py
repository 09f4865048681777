"""What a session is built from (SessionParts, filled by the composition root, app/compose.py),
and how a settings reload keeps the live session's mode and session-only rules (live_rules).

Split from app/engine/session.py, which re-exports these names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeAlias

from app.execution.interfaces import HookRunner, NoHooks, PermissionDecider, Prompter
from app.model.client import ModelBackend
from app.transcript import TranscriptWriter
from tools.base import Tool, ToolContext
from tools.registry import ToolPool

if TYPE_CHECKING:
    from app.agents.loader import AgentSet
    from app.commands.loader import CommandSet
    from app.config.models import Settings
    from app.hooks.runner import CommandHookRunner
    from app.mcp.manager import McpManager
    from app.memory.nested import NestedMemory
    from app.permissions import PermissionContext, RuleDecider
    from app.skills.catalog import SkillCatalog

# A system prompt or a message: the API's JSON, block by block.
Json = dict[str, Any]
# A call's data as its transcript kept it (`toolUseResult`): JSON as json.loads gives it back.
RecordedResult: TypeAlias = (
    str | int | float | bool | list["RecordedResult"] | dict[str, "RecordedResult"] | None
)


@dataclass
class SessionParts:
    """Everything a session is built from (the composition root, app/compose.py, builds them)."""

    backend: ModelBackend
    pool: ToolPool
    context: ToolContext
    system: list[Json]
    decider: PermissionDecider
    prompter: Prompter | None
    session_id: str
    hooks: HookRunner = field(default_factory=NoHooks)
    # The non-tool hook events (UserPromptSubmit, Stop, SessionStart, SessionEnd, PreCompact,
    # Notification).
    session_hooks: CommandHookRunner | None = None
    transcript: TranscriptWriter | None = None
    messages: list[Json] = field(default_factory=list)
    # A resumed transcript's part before its last compaction: shown, never sent.
    earlier_messages: list[Json] = field(default_factory=list)
    # A resumed transcript's calls the user denied (id: the deny ended the turn), for history().
    user_denials: dict[str, bool] = field(default_factory=dict)
    # A resumed transcript's tool data (`toolUseResult`) by tool_use_id: history() rebuilds each
    # successful call's view through its tool's declaration (Tool.result_from_record).
    recorded_results: dict[str, RecordedResult] = field(default_factory=dict)
    max_turns: int | None = None
    max_tokens: int = 16_000
    fallback_tools: tuple[Tool[Any], ...] = ()
    # The built-in tools offered (the pool's prefix) and the MCP servers' manager, if any.
    builtin_tools: tuple[Tool[Any], ...] | None = None
    mcp: McpManager | None = None
    # The permission rules and mode in force (None: a bare decider, as in benchmarks).
    rules: RuleDecider | None = None
    settings: Settings | None = None
    project_dir: str = ""
    commands: CommandSet | None = None
    # The skills the Skill tool loads; a turn hands it the session so a skill's rules last the turn.
    skills: SkillCatalog | None = None
    nested_memory: NestedMemory | None = None
    # The memory files loaded at start (path, Claude Code's memory_type) for InstructionsLoaded.
    memory_files: tuple[tuple[str, str], ...] = ()
    # Compaction rebuilds the system prompt, re-reading the memory files from disk.
    rebuild_system: Callable[[], list[Json]] | None = None
    include_partial_messages: bool = False
    # --fallback-model (used once when the model is overloaded) and extra request parameters.
    fallback_model: str | None = None
    request_extra: Mapping[str, Any] = field(default_factory=dict)
    # Subagents: the agent types the Agent tool may start (None: no Agent tool runner, as in a
    # subagent's own session) and their system prompt (the agent's text in place of lathe's
    # introduction, then the same environment and memory files, and the skill listing when the
    # second argument says the agent has the Skill tool).
    agents: AgentSet | None = None
    build_system: Callable[[str, bool], list[Json]] | None = None
    # A subagent's conversation: the Agent tool_use it runs under (its tool-call views say so).
    parent_tool_use_id: str | None = None


def live_rules(loaded: PermissionContext, current: PermissionContext) -> PermissionContext:
    """The files' rules, with the live session's mode and its session-only rules kept."""
    kept = [r for r in (*current.allow, *current.deny, *current.ask) if r.source == "session"]
    merged = replace(loaded, mode=current.mode, pre_plan_mode=current.pre_plan_mode)
    return merged.with_rules(kept) if kept else merged
