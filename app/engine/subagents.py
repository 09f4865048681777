"""Subagents: the Agent tool's child conversations, run through the engine's own turn loop.

A child is a Session of its own (messages, executor, usage) built from the parent's parts: the
same model client (another model only where the call or the definition names one), the same
permission decider (rules and mode, live), the same prompter (its questions reach the user's
dialog, labelled with the agent), the same hooks (their stdin carries `agent_id` and
`agent_type`), a tool pool cut down to what the definition allows and never the Agent tool
(subagents start no subagents). The child's abort is a child of the Agent call's, so Ctrl+C (or
a sibling's failure) stops it through the usual cascade and every tool_use of the child still
gets its one result. Its transcript is a sidechain beside the session's; its messages go out as
SubagentMessage events (stream-json's `parent_tool_use_id`), and its progress (current tool, tool
uses, tokens) as the Agent call's ToolProgress, which is what the progress panel shows.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from app.agents.definitions import AgentDefinition, resolve_model, select_tools
from app.agents.hooks import enter_agent_hooks
from app.agents.loader import AgentSet
from app.agents.memory import MAX_LINES, index_in_prompt, memory_prompt, prepare_folder
from app.engine.events import (
    AssistantMessage,
    EngineEvent,
    Notice,
    SubagentMessage,
    ToolCallUpdated,
    ToolResultsMessage,
    TurnStarted,
    UsageUpdated,
)
from app.engine.subagent_parts import (
    LabelledPrompter,
    MirroredUsage,
    SidechainWriter,
    preloaded_skills,
    sidechain_path,
)
from app.execution.interfaces import DenyingPrompter, HookRunner
from tools.abort import AbortController, AbortSignal
from tools.base import ReadFileCache, ToolContext, ToolProgress
from tools.files.readstate import record_read
from tools.registry import ToolPool
from tools.subagent import (
    AgentSummary,
    BackgroundLaunch,
    SubagentOutcome,
    SubagentRequest,
    UnknownAgentType,
)

if TYPE_CHECKING:
    from app.config.models import PermissionMode
    from app.engine.session import Session


def new_agent_id() -> str:
    """Claude Code's shape: "a" and 16 hex digits."""
    return "a" + secrets.token_hex(8)


@dataclass
class _Progress:
    """What the progress panel's row for one Agent call shows."""

    agent_type: str
    on_progress: Callable[[ToolProgress], None]
    tool_uses: int = 0
    tokens: int = 0
    current: str = ""
    tools_used: list[str] = field(default_factory=list)

    def tool(self, name: str, summary: str, known: bool = True) -> None:
        """`known`: the subagent has the tool. A call of one it lacks ("No such tool
        available") is not named among the tools it used (Claude Code 2.1.332's
        `<tools-used-before-summary>` leaves it out, measured, ext-r4 F6)."""
        self.tool_uses += 1
        if known and name not in self.tools_used:
            self.tools_used.append(name)
        self.current = f"{name} {summary}".strip()
        self._report(output=f"{name}({summary})\n" if summary else f"{name}\n")

    def usage(self, tokens: int) -> None:
        self.tokens = tokens
        self._report()

    def _report(self, output: str = "") -> None:
        parts = [self.current] if self.current else []
        parts.append(f"{self.tool_uses} tool use{'s' if self.tool_uses != 1 else ''}")
        parts.append(f"{_short(self.tokens)} tokens")
        self.on_progress(
            ToolProgress(
                text=" · ".join(parts),
                output=output,
                data={
                    "agent_type": self.agent_type,
                    "tool_uses": self.tool_uses,
                    "total_tokens": self.tokens,
                    "last_tool": self.current,
                },
            )
        )


def _short(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


class SessionSubagents:
    """The SubagentRunner the engine puts in the session's ToolContext."""

    def __init__(self, parent: Session, agents: AgentSet) -> None:
        self.parent = parent
        self.definitions = agents
        # The calls the subagents denied, until the session's turn ends and reports them.
        self._denials: list[Mapping[str, Any]] = []

    def take_denials(self) -> list[Mapping[str, Any]]:
        taken, self._denials = self._denials, []
        return taken

    def agents(self) -> tuple[AgentSummary, ...]:
        return self.definitions.summaries()

    def find(self, name: str) -> AgentDefinition:
        found = self.definitions.get(name)
        if found is None:
            names = ", ".join(a.name for a in self.definitions.all())
            raise UnknownAgentType(f"Agent type '{name}' not found. Available agents: {names}")
        # Every route to a subagent passes here (the Agent tool, a forked skill's `agent:`, a
        # background launch): an `Agent(TYPE)` deny rule holds for all of them.
        from app.permissions.subagent_mode import denied_agent_type

        rules = self.parent.parts.rules
        denied = denied_agent_type(rules.context, (found.name, name)) if rules is not None else ""
        if denied:
            raise UnknownAgentType(denied)
        return found

    async def run(
        self,
        request: SubagentRequest,
        context: ToolContext,
        on_progress: Callable[[ToolProgress], None],
    ) -> SubagentOutcome:
        definition = self.find(request.subagent_type)
        self._refuse_toolless(definition)
        agent_id = new_agent_id()
        progress = _Progress(definition.name, on_progress)
        child = self._child(definition, request, agent_id, context, progress, context.tool_use_id)
        return await self._drive(
            child, definition, request, agent_id, context, progress, AbortController(context.abort)
        )

    def start(self, request: SubagentRequest, context: ToolContext) -> BackgroundLaunch:
        from app.engine.background_agents import BackgroundAgent, notification_text

        definition = self.find(request.subagent_type)
        self._refuse_toolless(definition)
        agent_id = new_agent_id()
        progress = _Progress(definition.name, lambda p: None)
        tool_use_id = context.tool_use_id
        child = self._child(definition, request, agent_id, context, progress, tool_use_id)
        transcript = child.parts.transcript
        output_file = str(transcript.path) if transcript is not None else ""
        # Its own abort: the launching call ends now, and a Ctrl+C of the turn leaves it running.
        agent = BackgroundAgent(agent_id, request.description)
        own = replace(context, abort=agent.abort.signal)

        async def drive() -> None:
            outcome: SubagentOutcome | None = None
            error = ""
            try:
                outcome = await self._drive(
                    child, definition, request, agent_id, own, progress, agent.abort
                )
            except Exception as exc:  # the notification says so; nothing raises into the loop
                error = f"{type(exc).__name__}: {exc}"
            if agent.status == "running":
                agent.status = (
                    "completed" if outcome is not None and not outcome.is_error else ("failed")
                )
            self.parent.deliver_notification(
                notification_text(outcome, agent, tool_use_id, output_file, error),
                f"Background agent {definition.name} ({request.description}): {agent.status}",
            )

        agent.task = asyncio.ensure_future(drive())
        context.background.add(agent)
        return BackgroundLaunch(agent_id, definition.name, output_file)

    async def _drive(
        self,
        child: Session,
        definition: AgentDefinition,
        request: SubagentRequest,
        agent_id: str,
        context: ToolContext,
        progress: _Progress,
        abort: AbortController,
    ) -> SubagentOutcome:
        from app.engine.turn import run_turn

        started = time.perf_counter()
        content: list[dict[str, Any]] = [{"type": "text", "text": request.prompt}]
        content.extend(preloaded_skills(self.parent, definition))
        hooks = self.parent.parts.session_hooks
        try:
            if hooks is not None:
                verdict = await hooks.subagent_start(agent_id, definition.name, context)
                for message in verdict.messages:
                    self.parent.emit(Notice(f"[{definition.name}] {message.text}", message.level))
                for extra in verdict.additional_context:
                    content.append(
                        {"type": "text", "text": f"<system-reminder>\n{extra}\n</system-reminder>"}
                    )
            ended = await run_turn(child, request.prompt, abort, content)
            self._denials.extend(ended.permission_denials)
        finally:
            if child.parts.transcript is not None:
                child.parts.transcript.close()
        limited = ended.subtype == "error_max_turns" and definition.max_turns is not None
        return SubagentOutcome(
            agent_id=agent_id,
            agent_type=definition.name,
            # At its turn limit the agent has no report (the text is lathe's "Reached ..."):
            # the hand-back says where it stopped instead, and it is no failure.
            text="" if limited else ended.result_text,
            tool_uses=progress.tool_uses,
            total_tokens=progress.tokens,
            duration_ms=int((time.perf_counter() - started) * 1000),
            tools_used=tuple(progress.tools_used),
            is_error=ended.is_error and not limited,
            turn_limit=definition.max_turns or 0 if limited else 0,
            interrupted=ended.subtype == "interrupted",
            prompt=request.prompt,
            model=child.backend.model,
        )

    # -- building the child -----------------------------------------------------------------------

    def _child(
        self,
        definition: AgentDefinition,
        request: SubagentRequest,
        agent_id: str,
        context: ToolContext,
        progress: _Progress,
        parent_tool_use_id: str,
    ) -> Session:
        from app.engine.session import Session, SessionParts

        parent = self.parent
        parts = parent.parts
        tools = select_tools(definition, parent.pool.tools)
        builtins = sum(1 for t in tools if not t.is_mcp)
        pool = ToolPool(tuple(tools), builtins - 1)
        backend = replace(
            parent.backend, model=resolve_model(request.model, definition, parent.backend.model)
        )
        label = f"{definition.name} agent"
        prompter = parts.prompter
        if prompter is not None and not isinstance(prompter, DenyingPrompter):
            prompter = LabelledPrompter(prompter, label)
        transcript: SidechainWriter | None = None
        if parts.transcript is not None:
            transcript = SidechainWriter(sidechain_path(parts.transcript.path, agent_id), agent_id)
            transcript.write_meta(
                {
                    "agentType": definition.name,
                    "isBuiltIn": definition.source == "built-in",
                    "description": request.description,
                    "toolUseId": parent_tool_use_id,
                    "model": backend.model,
                }
            )
        # The session's hooks, naming the agent; its end fires SubagentStop (app/hooks/runner.py).
        session_hooks = parts.session_hooks
        if session_hooks is not None:
            path = str(transcript.path) if transcript is not None else ""
            session_hooks = session_hooks.for_agent(agent_id, definition.name, path)
        hooks: HookRunner = parts.hooks
        if parts.hooks is parts.session_hooks and session_hooks is not None:
            hooks = session_hooks
            # The agent file's own hooks, on this subagent's copy of the runner only.
            enter_agent_hooks(
                session_hooks,
                definition.hooks_json,
                definition.path,
                self._untrusted(definition),
                lambda text: parent.emit(Notice(text, "warning")),
                definition.name,
            )
        # The skill listing comes with the Skill tool (Claude Code lists the skills to every
        # subagent that has the tool, measured), else the tool names skills it never offered.
        with_skills = any(t.offers_skills for t in tools)
        build = parts.build_system
        prepare_folder(definition)

        def system_prompt() -> list[dict[str, Any]]:
            # An agent with `memory:` gets its notes' guide and index, read as it starts.
            own = memory_prompt(definition)
            if build is None:
                return [{"type": "text", "text": own}]
            return build(own, with_skills)

        system = system_prompt()
        decider, view = self._decider(definition)
        child_context = replace(
            context,
            permissions=view if view is not None else context.permissions,
            # Its own record of what it read: Edit and Write in the child need the child's Read.
            read_files=ReadFileCache(),
            subagents=None,
            tool_use_id="",
            abort=AbortSignal(),
            state={},
        )
        seen = index_in_prompt(definition)
        if seen is not None:
            try:
                record_read(child_context, seen[0], seen[1], None, None if seen[1] else MAX_LINES)
            except OSError:
                pass  # gone since: the agent reads it first, as any file
        child_parts = SessionParts(
            backend=backend,
            pool=pool,
            context=child_context,
            system=system,
            decider=decider,
            prompter=prompter,
            session_id=parent.session_id,
            hooks=hooks,
            session_hooks=session_hooks,
            transcript=transcript,
            max_tokens=parts.max_tokens,
            # The definition's `maxTurns` (Claude Code 2.1.332 stops the agent there, ext-r4 F16).
            max_turns=definition.max_turns,
            fallback_tools=tuple(tools),
            rules=parts.rules,
            settings=parts.settings,
            project_dir=parts.project_dir,
            # Compaction rebuilds the agent's own system prompt, never the main session's.
            rebuild_system=system_prompt,
        )
        child = Session(child_parts, None)
        child.usage = MirroredUsage(parent.usage)
        child.set_sink(self._sink(child, definition.name, agent_id, parent_tool_use_id, progress))
        return child

    def _refuse_toolless(self, definition: AgentDefinition) -> None:
        """A `tools:` list naming tools but none the session has (`tools: read, bash`, lower
        case) starts nothing: Claude Code 2.1.332 refuses it in these words (measured, ext-r4
        F18). `tools: []` on purpose still runs tool-less."""
        if not definition.tools or select_tools(definition, self.parent.pool.tools):
            return
        names = ", ".join(definition.tools)
        raise UnknownAgentType(
            f"Agent '{definition.name}' would be spawned with zero tools — refusing. Its tools "
            f"list resolved to nothing: unrecognized [{names}]. Fix the agent's tools "
            "frontmatter or pass a different subagent_type."
        )

    def _untrusted(self, definition: AgentDefinition) -> bool:
        """A project's agent file in a folder nobody trusted (its hooks do not run there)."""
        rules = self.parent.parts.rules
        # No rules at all (a bare test session): nobody trusted the folder either.
        trusted = rules is not None and rules.context.trusted
        return definition.source == "project" and not trusted

    def _decider(self, definition: AgentDefinition) -> tuple[Any, Any]:
        """The parent's decider, or (its `permissionMode` granted) one in the agent's own mode
        (app/permissions/subagent_mode.py), with the permission view its tools read."""
        from app.permissions.decider import RuleDecider
        from app.permissions.subagent_mode import ModeDecider, subagent_mode, untrusted_carrier

        parts = self.parent.parts
        rules = parts.rules
        memory = (definition.memory_dir,) if definition.memory_dir else ()
        if not (definition.permission_mode or memory) or not isinstance(rules, RuleDecider):
            return parts.decider, None
        if parts.decider is not rules:  # a decider lathe did not build (benchmarks): as is
            return parts.decider, None
        mode: PermissionMode | None = None
        if definition.permission_mode:
            mode, warning = subagent_mode(
                definition.permission_mode,
                rules.context.mode,
                untrusted=untrusted_carrier(definition.source, rules.context),
            )
            if warning:
                self.parent.emit(Notice(warning, "warning"))
        if mode is None and not memory:
            return parts.decider, None
        decider = ModeDecider(rules, mode, memory)
        return decider, decider.view()

    def _sink(
        self,
        child: Session,
        agent_type: str,
        agent_id: str,
        parent_tool_use_id: str,
        progress: _Progress,
    ) -> Callable[[EngineEvent], None]:
        parent = self.parent

        def message(msg: Any) -> None:
            parent.emit(SubagentMessage(parent_tool_use_id, agent_id, agent_type, dict(msg)))

        def sink(event: EngineEvent) -> None:
            # Only what a front end shows nested under the Agent call leaves the child: its text
            # deltas, tool blocks and turn events must not land in the session's conversation.
            if isinstance(event, ToolCallUpdated):
                if event.change == "queued":
                    name = event.view.name
                    progress.tool(name, event.view.title, child.deps.find(name) is not None)
                # Nested under the Agent call: front ends that show subagents' calls can.
                view = replace(event.view, parent_tool_use_id=parent_tool_use_id)
                parent.emit(ToolCallUpdated(view, event.change, event.output))
            elif isinstance(event, UsageUpdated):
                last = child.usage.last
                progress.usage(sum(last.get(k, 0) for k in last))
                totals = parent.usage.totals()
                parent.emit(
                    UsageUpdated(
                        totals["input_tokens"],
                        totals["output_tokens"],
                        totals["cache_read_input_tokens"],
                        totals["cache_creation_input_tokens"],
                        parent.usage.total_cost_usd,
                    )
                )
            elif isinstance(event, TurnStarted):
                message({"role": "user", "content": [{"type": "text", "text": event.prompt}]})
            elif isinstance(event, AssistantMessage | ToolResultsMessage):
                message(event.message)
            elif isinstance(event, Notice):
                parent.emit(Notice(f"[{agent_type}] {event.text}", event.level))

        return sink
