"""The "running" moment (app/execution/pipeline.py calls it right before the tool's `call`): the
executor's ToolRunning comes after the permission decision and its question, never for a denied
call, once per call that runs; the engine's tracker starts the call's clock there, so a call's
elapsed time is its run, not the wait for the user. A fake clock measures the wait: no sleeps."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.engine import answers
from app.engine.tool_views import ToolCallTracker
from app.execution.events import (
    ExecutorEvent,
    ToolFinished,
    ToolProgressed,
    ToolQueued,
    ToolRunning,
    ToolStarted,
)
from app.execution.interfaces import PermissionPrompt
from app.execution.pipeline import PipelineDeps
from app.execution.streaming_executor import StreamingToolExecutor
from app.hooks.results import HookStop
from tests.support.fake_tools import SafeSleep, SleepInput, UnsafeSleep, tool_use
from tools.base import CanUseTool, ProgressCallback, Tool, ToolContext, ToolResult
from tools.decisions import PermissionDecision

MSG: dict[str, Any] = {"role": "assistant", "content": []}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Timed(UnsafeSleep):
    """Runs for `ms` on the fake clock (the clock moves; nothing sleeps)."""

    name = "Timed"

    def __init__(self, clock: Clock, log: list[tuple[str, str]]) -> None:
        super().__init__()
        self.clock = clock
        self.log = log

    async def call(
        self,
        input: SleepInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        self.log.append(("call", context.tool_use_id))
        self.clock.now += input.ms / 1000
        return ToolResult(data="ran")


class AskAll:
    """Every call needs the user's answer."""

    async def decide(
        self, tool: Tool[Any], input: Any, observable: Mapping[str, Any], context: ToolContext
    ) -> PermissionDecision:
        return PermissionDecision.ask("May it run?")

    async def decide_as_asking(
        self, tool: Tool[Any], input: Any, observable: Mapping[str, Any], context: ToolContext
    ) -> PermissionDecision:
        return await self.decide(tool, input, observable, context)


class SlowUser:
    """Looks at each question for `wait_s` on the fake clock, then answers from a script."""

    def __init__(
        self, clock: Clock, log: list[tuple[str, str]], script: dict[str, PermissionDecision]
    ) -> None:
        self.clock = clock
        self.log = log
        self.script = script

    async def ask(self, prompt: PermissionPrompt) -> None:
        self.log.append(("asked", prompt.tool_use_id))
        self.clock.now += 100.0  # the user took 100 s
        self.log.append(("answered", prompt.tool_use_id))
        assert prompt.resolver.resolve(self.script[prompt.tool_use_id])


class BlockingHooks:
    """A PreToolUse hook that blocks the call named `blocked` (the others pass)."""

    def __init__(self, blocked: str) -> None:
        from app.execution.interfaces import NoHooks

        self.blocked = blocked
        self._none = NoHooks()

    async def pre_tool_use(self, call: Any, context: Any) -> list[Any]:
        return [HookStop("blocked by a hook")] if call.tool_use_id == self.blocked else []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._none, name)


def _run(
    tmp_path: Path, clock: Clock, log: list[tuple[str, str]], deps: PipelineDeps
) -> tuple[StreamingToolExecutor, list[Any]]:
    ctx = ToolContext(
        cwd=str(tmp_path),
        project_dir=str(tmp_path),
        working_dirs=(str(tmp_path),),
        session_dir=str(tmp_path / "session"),
    )
    tracker = ToolCallTracker(clock=clock)
    views: list[Any] = []

    def on_event(event: ExecutorEvent) -> None:
        match event:
            case ToolQueued():
                update = tracker.queued(event)
            case ToolStarted():
                update = tracker.started(event)
            case ToolRunning():
                update = tracker.running(event)
            case ToolProgressed():
                update = tracker.progressed(event)
            case ToolFinished():
                update = tracker.finished(event)
        views.append(update)
        log.append((update.change, update.view.tool_use_id))

    return StreamingToolExecutor(deps, ctx, on_event=on_event, clock=clock), views


async def test_running_comes_after_the_answer_once_and_the_wait_is_not_run_time(
    tmp_path: Path,
) -> None:
    clock, log = Clock(), []
    tool = Timed(clock, log)
    user = SlowUser(clock, log, {"a": answers.allow_once(), "d": answers.deny()})
    deps = PipelineDeps([tool], decider=AskAll(), prompter=user)
    executor, views = _run(tmp_path, clock, log, deps)
    executor.add_tool(tool_use("a", "Timed", ms=2_000), MSG)
    executor.add_tool(tool_use("d", "Timed", ms=2_000), MSG)
    outcomes = [o async for o in executor.get_remaining_results()]
    assert [(o.tool_use_id, o.is_error) for o in outcomes] == [("a", False), ("d", True)]
    # a: checked, asked, answered, and only then running, once, right before the tool's call.
    of_a = [entry for entry in log if entry[1] == "a"]
    assert [kind for kind, _ in of_a] == [
        "queued",
        "started",
        "asked",
        "answered",
        "running",
        "call",
        "finished",
    ]
    # d: denied by the user: it never runs, so it has no "running" change and no time.
    of_d = [kind for kind, tool_use_id in log if tool_use_id == "d"]
    assert "running" not in of_d and "call" not in of_d
    by_change = {(u.change, u.view.tool_use_id): u.view for u in views}
    assert by_change[("started", "a")].status == "checking"
    assert by_change[("started", "a")].started_at is None
    running = by_change[("running", "a")]
    assert running.status == "running" and running.started_at == 1100.0  # after the 100 s wait
    # 2 s of running, not the 102 s since the executor took the call.
    assert by_change[("finished", "a")].elapsed == 2.0
    assert by_change[("finished", "d")].elapsed is None


async def test_a_call_denied_by_a_rule_or_blocked_by_a_hook_never_runs(tmp_path: Path) -> None:
    clock, log = Clock(), []

    class DenyD(AskAll):
        async def decide(
            self, tool: Tool[Any], input: Any, observable: Mapping[str, Any], context: ToolContext
        ) -> PermissionDecision:
            return PermissionDecision.deny("denied by a rule")

    tool = Timed(clock, log)
    denied, _ = _run(tmp_path, clock, log, PipelineDeps([tool], decider=DenyD()))
    denied.add_tool(tool_use("r", "Timed", ms=10), MSG)
    [out] = [o async for o in denied.get_remaining_results()]
    assert out.permission_denial is not None
    hooked, _ = _run(
        tmp_path,
        clock,
        log,
        PipelineDeps(
            [tool, SafeSleep()],
            decider=_AllowAll(),
            hooks=BlockingHooks("h"),  # type: ignore[arg-type]
        ),
    )
    hooked.add_tool(tool_use("h", "Timed", ms=10), MSG)
    hooked.add_tool(tool_use("ok", "SafeSleep", ms=1), MSG)
    outs = [o async for o in hooked.get_remaining_results()]
    assert [o.is_error for o in outs] == [True, False]
    assert ("running", "r") not in log and ("call", "r") not in log
    assert ("running", "h") not in log and ("call", "h") not in log
    # The call nothing stopped: exactly one "running".
    assert log.count(("running", "ok")) == 1


class _AllowAll:
    async def decide(
        self, tool: Tool[Any], input: Any, observable: Mapping[str, Any], context: ToolContext
    ) -> PermissionDecision:
        return PermissionDecision.allow()

    async def decide_as_asking(
        self, tool: Tool[Any], input: Any, observable: Mapping[str, Any], context: ToolContext
    ) -> PermissionDecision:
        return PermissionDecision.allow()
