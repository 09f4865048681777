"""Small, real tools for exercising the pipeline and executor: they sleep, fail, report progress,
change the context and record exactly when they ran, so tests can check scheduling."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from tools.base import (
    CanUseTool,
    ProgressCallback,
    Tool,
    ToolContext,
    ToolError,
    ToolInput,
    ToolProgress,
    ToolResult,
)
from tools.decisions import PermissionDecision, ValidationResult


@dataclass
class Recorder:
    """Shared log of starts and ends, checking the read-write rule as it goes."""

    running: dict[str, bool] = field(default_factory=dict)  # id -> safe
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    started: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    start_times: dict[str, float] = field(default_factory=dict)

    def start(self, tool_use_id: str, safe: bool) -> None:
        if self.running and (not safe or not all(self.running.values())):
            self.violations.append(f"{tool_use_id} overlapped {sorted(self.running)}")
        self.running[tool_use_id] = safe
        self.started.append(tool_use_id)
        self.start_times[tool_use_id] = time.perf_counter()

    def end(self, tool_use_id: str) -> None:
        self.running.pop(tool_use_id, None)
        self.intervals[tool_use_id] = (self.start_times[tool_use_id], time.perf_counter())


class SleepInput(ToolInput):
    ms: float = 0
    fail: bool = False
    progress: int = 0
    modifier: bool = False
    crash: bool = False
    ignore_abort: bool = False
    path: str = ""


class _SleepBase(Tool[SleepInput]):
    input_model = SleepInput
    safe = True

    def __init__(self, recorder: Recorder | None = None) -> None:
        self.recorder = recorder or Recorder()
        self.calls: list[SleepInput] = []

    def description(self) -> str:
        return "sleeps"

    def is_concurrency_safe(self, input: SleepInput) -> bool:
        return self.safe

    def is_read_only(self, input: SleepInput) -> bool:
        return self.safe

    def backfill_observable_input(self, input: dict[str, Any], context: ToolContext) -> None:
        if input.get("path"):
            input["path"] = context.resolve_path(input["path"])

    async def call(
        self,
        input: SleepInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        self.calls.append(input)
        self.recorder.start(context.tool_use_id, self.safe)
        try:
            for i in range(input.progress):
                on_progress(ToolProgress(text=f"step {i}", fraction=(i + 1) / input.progress))
                await asyncio.sleep(0)
            if input.ms:
                if input.ignore_abort:
                    await asyncio.sleep(input.ms / 1000)
                else:
                    sleeper = asyncio.ensure_future(asyncio.sleep(input.ms / 1000))
                    aborted = asyncio.ensure_future(context.abort.wait())
                    done, pending = await asyncio.wait(
                        {sleeper, aborted}, return_when=asyncio.FIRST_COMPLETED
                    )
                    for p in pending:
                        p.cancel()
                    if aborted in done:
                        return ToolResult(data="stopped early", is_error=True)
            if input.crash:
                raise RuntimeError("boom")
            if input.fail:
                raise ToolError(f"{self.name} failed on purpose")
            modifier = None
            if input.modifier:
                tid = context.tool_use_id

                def modifier(ctx: ToolContext) -> ToolContext:
                    order = (*tuple(ctx.state.get("order", ())), tid)
                    return replace(ctx, state={**ctx.state, "order": order})

            return ToolResult(
                data=f"{self.name} done {context.tool_use_id}", context_modifier=modifier
            )
        finally:
            self.recorder.end(context.tool_use_id)


class SafeSleep(_SleepBase):
    name = "SafeSleep"
    safe = True


class UnsafeSleep(_SleepBase):
    name = "UnsafeSleep"
    safe = False


class ShellLike(_SleepBase):
    """Fails like Bash: its errors cancel the siblings of its batch."""

    name = "ShellLike"
    safe = False
    cancels_siblings_on_error = True


class SafeShellLike(_SleepBase):
    """A concurrency-safe tool whose errors cancel siblings (a read-only Bash command)."""

    name = "SafeShellLike"
    safe = True
    cancels_siblings_on_error = True


class CancelSleep(_SleepBase):
    name = "CancelSleep"
    safe = False

    def interrupt_behavior(self) -> Literal["cancel", "block"]:
        return "cancel"


class Picky(_SleepBase):
    """Has its own business rule and its own permission opinion."""

    name = "Picky"
    safe = False

    async def validate_input(self, input: SleepInput, context: ToolContext) -> ValidationResult:
        if input.ms > 1000:
            return ValidationResult.failure("ms must be at most 1000")
        return ValidationResult.success()

    async def check_permissions(
        self, input: SleepInput, context: ToolContext
    ) -> PermissionDecision:
        if input.path.startswith("/forbidden"):
            return PermissionDecision.deny("Picky refuses /forbidden")
        return PermissionDecision.passthrough()


class Exploding(_SleepBase):
    """A tool whose declarations raise: the scheduler must treat it as unsafe."""

    name = "Exploding"

    def is_concurrency_safe(self, input: SleepInput) -> bool:
        raise RuntimeError("declaration bug")


def tool_use(tool_use_id: str, name: str, **input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_use_id, "name": name, "input": input}


class AllowAll:
    """A PermissionDecider that allows everything (for scheduling tests, not permission tests)."""

    async def decide(
        self, tool: Tool[Any], input: Any, observable: Mapping[str, Any], context: ToolContext
    ) -> PermissionDecision:
        return PermissionDecision.allow()

    async def decide_as_asking(self, tool, input, observable, context):  # type: ignore[no-untyped-def]
        return await self.decide(tool, input, observable, context)  # no modes: the same verdict
