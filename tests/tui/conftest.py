"""Deterministic harness for the TUI: fixed clock, fixed folder and branch, no blink, no
animations, no progress ticker; events are the engine's real event objects."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from app.engine.api import CommandInfo, SessionStatus
from app.engine.events import EngineEvent, InternalEvent, Interrupted, TurnEnded, TurnStarted
from app.engine.tool_views import ToolCallTracker, question_for
from app.engine.views import PermissionQuestion
from app.execution.events import ToolFinished, ToolProgressed, ToolQueued, ToolRunning, ToolStarted
from app.execution.interfaces import PermissionPrompt
from app.execution.outcome import CallOutcome
from app.tui.app import LatheApp
from app.tui.ports import TuiConfig
from tools.decisions import DecisionReason, PermissionDecision
from tools.registry import find_tool, get_all_base_tools

SIZE = (100, 32)


class FixedClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_config(**changes: Any) -> TuiConfig:
    base: dict[str, Any] = {
        "folder": "~/work/demo",
        "branch": "main",
        "model": "claude-sonnet-4-5",
        "dialog_key_guard_s": 0.0,
        "progress_tick_s": None,
        "busy_tick_s": None,
        "cursor_blink": False,
        "clock": FixedClock(),
    }
    base.update(changes)
    return TuiConfig(**base)


def make_app(session: Any = None, **changes: Any) -> LatheApp:
    return LatheApp(make_config(**changes), session=session)


Step = Callable[["ScriptedSession"], Awaitable[None]]


class Views:
    """The engine's translation of executor events into tool-call views (as Session.emit does),
    so scenes can be written as the executor's events and the App gets what a session sends."""

    def __init__(self) -> None:
        # The built-in tools, as a session's lookup: a finished call shows what its tool declares.
        tools = get_all_base_tools()
        self.calls = ToolCallTracker(find=lambda name: find_tool(tools, name))

    def __call__(self, event: InternalEvent) -> EngineEvent:
        match event:
            case ToolQueued():
                return self.calls.queued(event)
            case ToolStarted():
                return self.calls.started(event)
            case ToolRunning():
                return self.calls.running(event)
            case ToolProgressed():
                return self.calls.progressed(event)
            case ToolFinished():
                return self.calls.finished(event)
        return event


def question(prompt: PermissionPrompt) -> PermissionQuestion:
    """The question the engine's prompter would announce for `prompt`."""
    return question_for(prompt)


@dataclass
class ScriptedSession:
    """Stands in for app.engine.session.Session behind the SessionPort: it emits real engine
    events through the App's sink, in the order a real turn would, and honours interrupt().
    The real parts a test needs are passed in: a RuleDecider (`rules`), the custom commands, a
    statusLine command, a hook runner for Notification hooks."""

    app: LatheApp
    steps: Sequence[Step] = ()
    model: str = "claude-sonnet-4-5"
    session_id: str = "sess-1"
    permission_mode: str = "default"
    tool_names: Sequence[str] = ("Read", "Edit", "Bash")
    prompts: list[str] = field(default_factory=list)
    interrupted: asyncio.Event = field(default_factory=asyncio.Event)
    interrupts: int = 0
    open_prompts: list[PermissionQuestion] = field(default_factory=list)
    views: Views = field(default_factory=Views)
    rules: Any = None
    commands: Any = None
    status_line: str | None = None
    hooks: Any = None
    project_dir: str = "/p"
    transcript_path: str = ""
    running: bool = False

    def emit(self, event: InternalEvent) -> None:
        self.app.handle_engine_event(self.views(event))

    def set_sink(self, sink: Any) -> None:
        pass

    def status(self) -> SessionStatus:
        return SessionStatus(
            self.session_id,
            self.model,
            False,
            self.permission_mode,
            self.running,
            self.project_dir,
            self.project_dir,
            self.transcript_path,
            tuple(self.tool_names),
            (),
            {},
            0.0,
        )

    def set_permission_mode(self, mode: str) -> None:
        self.permission_mode = mode

    def set_model(self, model: str) -> None:
        self.model = model

    def describe_permissions(self) -> str:
        return "No rules loaded."

    def replace_rules(self, loaded: Any) -> None:
        from app.engine.session import live_rules

        # The engine's own merge, on the real decider the test holds.
        self.rules.set_context(live_rules(loaded, self.rules.context))

    def custom_commands(self) -> tuple[CommandInfo, ...]:
        if self.commands is None:
            return ()
        return tuple(CommandInfo(c.name, c.help) for c in self.commands.sorted())

    def status_line_command(self) -> str | None:
        return self.status_line

    @property
    def wants_idle_notification(self) -> bool:
        return self.hooks is not None and self.hooks.has_hooks("Notification")

    async def notify_idle(self, message: str) -> None:
        await self.hooks.notification(message, "idle_prompt")

    def interrupt(self) -> bool:
        self.interrupts += 1
        for prompt in self.open_prompts:
            prompt.resolver.resolve(
                PermissionDecision.deny("aborted", DecisionReason("abort", "interrupted"))
            )
        self.interrupted.set()
        return True

    def answer(self, question: PermissionQuestion, decision: PermissionDecision) -> bool:
        return question.answer(decision)

    def send_while_running(self, prompt: str) -> bool:
        return False

    def take_queued_prompts(self) -> list[str]:
        return []

    async def compact(self, instructions: str = "") -> TurnEnded:
        return TurnEnded(None, "", False, "success", 0)

    def clear(self) -> bool:
        return True

    def context_breakdown(self) -> list[str]:
        return []

    def report_context(self) -> None:
        pass

    def history(self) -> tuple[EngineEvent, ...]:
        return ()

    async def start_mcp(self, timeout: float | None = None) -> None:
        pass

    def mcp_status(self) -> list[dict[str, str]]:
        return []

    async def reconnect_mcp(self, name: str) -> str:
        return f"{name}: no such server"

    async def close(self, reason: str = "exit") -> None:
        pass

    async def run_turn(self, prompt: str) -> TurnEnded:
        self.prompts.append(prompt)
        self.emit(TurnStarted(prompt))
        for step in self.steps:
            await step(self)
            if self.interrupted.is_set():
                self.emit(Interrupted(during_tools=True))
                end = TurnEnded(None, "", False, "interrupted", 1)
                self.emit(end)
                return end
        end = TurnEnded("end_turn", "", False, "success", 1)
        self.emit(end)
        return end


async def wait_for_interrupt(session: ScriptedSession) -> None:
    await session.interrupted.wait()


def outcome(tool_use_id: str, name: str, content: str, **kw: Any) -> CallOutcome:
    block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    # A call that was neither refused nor cut off ran (its tool's declarations then apply).
    kw.setdefault("ran", kw.get("synthetic") is None and kw.get("permission_denial") is None)
    return CallOutcome(tool_use_id, name, block, kw.pop("is_error", False), **kw)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


def pause_typing(app: LatheApp) -> None:
    """A pause longer than the typing gap on the app's FixedClock, before a deliberate answer: a
    dialog's digit right after typed letters is part of the sentence (typed_ahead.TYPING_GAP_S)."""
    from app.tui.screens.typed_ahead import TYPING_GAP_S

    clock = app.config.clock
    assert isinstance(clock, FixedClock)
    clock.now += TYPING_GAP_S
