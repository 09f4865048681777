"""Running a whole batch of tool calls that is already known (no streaming).

`partition_tool_calls` cuts the batch in one pass into runs: a single unsafe call, a run of safe
calls, a single unsafe call... Inside a safe run everything runs concurrently; between runs,
strictly in order. Context modifiers of a safe run are replayed after the run in the order the
tool_use blocks were declared, never in completion order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.execution.events import ExecutorEvent
from app.execution.outcome import CallOutcome
from app.execution.pipeline import PipelineDeps
from app.execution.safety import is_call_concurrency_safe
from app.execution.streaming_executor import StreamingToolExecutor
from tools.abort import AbortSignal
from tools.base import ToolContext


@dataclass(frozen=True)
class Run:
    safe: bool
    blocks: tuple[Mapping[str, Any], ...]


def partition_tool_calls(blocks: Sequence[Mapping[str, Any]], deps: PipelineDeps) -> list[Run]:
    runs: list[Run] = []
    for block in blocks:
        tool = deps.find(str(block.get("name", "")))
        safe = is_call_concurrency_safe(tool, block.get("input"))
        if safe and runs and runs[-1].safe:
            runs[-1] = Run(True, (*runs[-1].blocks, block))
        else:
            runs.append(Run(safe, (block,)))
    return runs


async def run_tools(
    blocks: Sequence[Mapping[str, Any]],
    parent_message: Mapping[str, Any],
    context: ToolContext,
    deps: PipelineDeps,
    turn_abort: AbortSignal | None = None,
    on_event: Callable[[ExecutorEvent], None] | None = None,
) -> tuple[list[CallOutcome], ToolContext]:
    """Run a known batch; returns the outcomes in tool_use order and the final context.

    The executor's read-write scheduling with everything queued up front runs exactly the runs
    that `partition_tool_calls` describes (an unsafe call stops the scan until the safe run before
    it drains), so there is one implementation of how calls run, not two.
    """
    executor = StreamingToolExecutor(deps, context, turn_abort, on_event)
    for block in blocks:
        executor.add_tool(block, parent_message)
    outcomes = [o async for o in executor.get_remaining_results()]
    return outcomes, executor.context
