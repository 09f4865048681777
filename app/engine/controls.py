"""What a program's front end (the Claude Agent SDK's control protocol, ACP) asks of a session
beyond turns: the MCP servers one by one, usage per model, the context's numbers, agent types
it defines, and hook callbacks it answers. Built inside the engine, so the front end never
reaches into the session's parts (`SessionPort.controls`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from app.agents.definitions import AgentDefinition
from app.config.hooks import HOOK_EVENTS, HookHandler, Matcher
from app.engine.context import Breakdown
from app.hooks.process import RawHookRun
from app.hooks.runner import CommandHookRunner
from app.mcp.info import ServerInfo
from app.model.usage import ModelUsage
from tools.abort import AbortSignal

if TYPE_CHECKING:
    from app.engine.session import Session

# A program's callbacks run as hook handlers of this source and command prefix.
CALLBACK_SOURCE = "sdk"
_PREFIX = "sdk-callback:"
DEFAULT_CALLBACK_TIMEOUT_S = 60.0  # the SDK's default for a matcher without `timeout`


@dataclass(frozen=True)
class HookCallback:
    """One callback a program registered: run for `event` when `matcher` matches (Claude Code's
    hook matcher syntax: "" or "*" all, `A|B` names, else a regex); `timeout` in seconds."""

    event: str
    matcher: str
    callback_id: str
    timeout: float | None = None


@dataclass(frozen=True)
class HookView:
    """A hook as it runs: its event and matcher, and the callback's id (empty for a hook of the
    settings files, whose command is `command`)."""

    event: str
    matcher: str
    callback_id: str = ""
    command: str = ""
    timeout: float = DEFAULT_CALLBACK_TIMEOUT_S


class HookCallbackRunner(Protocol):
    """Answers a callback: `payload` is Claude Code's hook input; the run's stdout is the
    answer's JSON, read as a command hook's output."""

    def __call__(
        self, hook: HookView, payload: Mapping[str, Any], abort: AbortSignal | None
    ) -> Awaitable[RawHookRun]: ...


class HookWatcher(Protocol):
    """Sees every hook run (`--include-hook-events`): `started` returns a token `finished`
    gets back with the run."""

    def started(self, hook: HookView) -> str: ...

    def finished(self, token: str, hook: HookView, run: RawHookRun) -> None: ...


def hook_view(handler: HookHandler) -> HookView:
    callback = handler.command.removeprefix(_PREFIX) if handler.source == CALLBACK_SOURCE else ""
    return HookView(
        handler.event,
        handler.matcher.text,
        callback,
        "" if callback else handler.command,
        handler.timeout,
    )


class _Watching:
    """The runner's HookObserver, telling a front end's watcher in the API's terms."""

    def __init__(self, watcher: HookWatcher) -> None:
        self.watcher = watcher

    def started(self, handler: HookHandler) -> str:
        return self.watcher.started(hook_view(handler))

    def finished(self, token: str, handler: HookHandler, run: RawHookRun) -> None:
        self.watcher.finished(token, hook_view(handler), run)


class SessionControls:
    """The session's controls for a program front end (implements app.engine.api's
    `ControlsPort`)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    # -- MCP servers one by one -----------------------------------------------------------------

    def mcp_servers(self) -> list[ServerInfo]:
        manager = self._session.parts.mcp
        return list(manager.servers()) if manager is not None else []

    def mcp_server(self, name: str) -> ServerInfo | None:
        manager = self._session.parts.mcp
        return manager.server(name) if manager is not None else None

    async def reconnect_mcp_server(self, name: str) -> ServerInfo:
        """Connect a server again (KeyError: no server of that name); the pool follows."""
        manager = self._session.parts.mcp
        if manager is None:
            raise KeyError(f"no MCP server named {name!r}")
        info = await manager.reconnect(name)
        self._session.refresh_tools()
        return info

    async def disable_mcp_server(self, name: str) -> ServerInfo:
        """Close a server and offer none of its tools until it is reconnected."""
        manager = self._session.parts.mcp
        if manager is None:
            raise KeyError(f"no MCP server named {name!r}")
        info = await manager.disable(name)
        self._session.refresh_tools()
        return info

    # -- numbers --------------------------------------------------------------------------------

    def usage_by_model(self) -> dict[str, ModelUsage]:
        """Cumulative usage per model over the session (copies: the counters go on)."""
        return {name: replace(m) for name, m in self._session.usage.by_model.items()}

    def context_window(self) -> int:
        return int(self._session.context_window())

    @property
    def max_output_tokens(self) -> int:
        return int(self._session.parts.max_tokens)

    def context_usage(self) -> Breakdown:
        """The numbers behind `/context`."""
        from app.engine.long_session import breakdown

        return breakdown(self._session)

    # -- agent types ----------------------------------------------------------------------------

    def agents(self) -> tuple[AgentDefinition, ...]:
        found = self._session.parts.agents
        return tuple(found.all()) if found is not None else ()

    def define_agents(self, definitions: Sequence[AgentDefinition]) -> bool:
        """Add agent types (a definition replaces one of the same name): the tool that runs
        subagents runs them and its description lists them. False when the session has no such
        tool (a subagent's own session, --tools without Agent)."""
        session = self._session
        parts = session.parts
        found, builtins = parts.agents, parts.builtin_tools
        if found is None or builtins is None:
            return False
        if not any(t.runs_subagents for t in session.pool.tools):
            return False
        for definition in definitions:
            found.agents[definition.name] = definition
        summaries = found.summaries()
        parts.builtin_tools = tuple(t.with_agents(summaries) for t in builtins)
        session.refresh_tools(force=True)  # the same names, a new description
        return True

    # -- hook callbacks -------------------------------------------------------------------------

    def _runner(self) -> CommandHookRunner | None:
        runner = self._session.parts.session_hooks
        return runner if isinstance(runner, CommandHookRunner) else None

    @property
    def runs_hooks(self) -> bool:
        return self._runner() is not None

    def register_hook_callbacks(
        self, callbacks: Sequence[HookCallback], run: HookCallbackRunner
    ) -> tuple[int, list[str]]:
        """The program's callbacks become hook handlers beside the settings' hooks (the same
        matching, stdin JSON and reading of the answer), replacing those registered before.
        Returns how many were registered and a problem per callback skipped."""
        runner = self._runner()
        if runner is None:
            return 0, ["this session runs no hooks; the SDK's hook callbacks are ignored"]
        handlers: list[HookHandler] = []
        problems: list[str] = []
        for callback in callbacks:
            event = next((e for e in HOOK_EVENTS if e == callback.event), None)
            if event is None:
                problems.append(
                    f"SDK hook event {callback.event!r} is not one lathe runs; "
                    "its callbacks are ignored"
                )
                continue
            try:
                matcher = Matcher.parse(callback.matcher)
            except Exception as exc:
                problems.append(f"SDK {callback.event} hook matcher {callback.matcher!r}: {exc}")
                continue
            timeout = callback.timeout if callback.timeout and callback.timeout > 0 else None
            handlers.append(
                HookHandler(
                    event=event,
                    matcher=matcher,
                    command=f"{_PREFIX}{callback.callback_id}",
                    timeout=timeout or DEFAULT_CALLBACK_TIMEOUT_S,
                    source=CALLBACK_SOURCE,
                    path="initialize",
                )
            )
        problems = list(dict.fromkeys(problems))  # an event's or matcher's once, not per callback
        kept = tuple(h for h in runner.config.handlers if h.source != CALLBACK_SOURCE)
        runner.config = replace(runner.config, handlers=(*kept, *handlers))

        async def call(handler: HookHandler, stdin: bytes, abort: AbortSignal | None) -> RawHookRun:
            payload = json.loads(stdin.decode("utf-8", "replace"))
            return await run(hook_view(handler), payload, abort)

        runner.callback_runner = call
        return len(handlers), problems

    def watch_hooks(self, watcher: HookWatcher) -> bool:
        """Tell `watcher` of every hook run from now on; False when the session runs none."""
        runner = self._runner()
        if runner is None:
            return False
        runner.observer = _Watching(watcher)
        return True
