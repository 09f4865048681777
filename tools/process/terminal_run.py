"""Bash's foreground command in a front end's terminal (ToolContext.terminals) instead of a
local process.

The front end runs the command in a terminal it shows live (ACP: the editor's; the tool call
carries the terminal's id, through `shown`); Bash waits for the exit, reads the output, and
releases the terminal. An interrupt or the timeout kills it first. The command string goes as the
terminal's command with no arguments, as clients run it through their shell.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tools.base import ProgressCallback, Terminals, ToolContext, ToolProgress, ToolResult
from tools.process.report import describe_exit

if TYPE_CHECKING:
    from tools.bash import BashInput


@dataclass(frozen=True)
class TerminalRun:
    output: str
    truncated: bool
    exit_code: int | None
    signal: str | None
    # What went wrong talking to the front end (its wait or output call failed): the run's end
    # or its output is unknown, so the call fails saying so rather than report no output.
    error: str = ""


async def run_in_terminal(
    terminals: Terminals,
    input: BashInput,
    context: ToolContext,
    limit: int,
    on_progress: ProgressCallback,
) -> ToolResult:
    from tools.bash import BashResult, format_duration

    options = context.options
    timeout_ms = min(input.timeout or options.bash_default_timeout_ms, options.bash_max_timeout_ms)
    try:
        terminal_id = await terminals.create(input.command, context.cwd, limit)
    except Exception as exc:
        return ToolResult(
            BashResult(text=f"Could not start the command in the editor's terminal: {exc}"),
            is_error=True,
        )
    terminals.shown(context.tool_use_id, terminal_id)
    on_progress(ToolProgress(text="running in the editor's terminal"))
    try:
        run, timed_out, aborted = await _wait(terminals, terminal_id, context, timeout_ms / 1000)
    finally:
        with contextlib.suppress(Exception):
            await terminals.release(terminal_id)
    notes: list[str] = []
    if run.error:
        notes.append(run.error)
    elif timed_out:
        notes.append(f"Command timed out after {format_duration(timeout_ms)}")
    elif aborted:
        notes.append("Command was interrupted")
    elif run.signal:
        notes.append(f"Killed by {run.signal}")
    else:
        notes.append(describe_exit(run.exit_code))
    if run.truncated:
        notes.append(f"(output cut to its last {limit} bytes by the editor's terminal)")
    body = run.output.rstrip("\n")
    text = "\n".join(part for part in (body, *notes) if part) or "(No output)"
    failed = bool(run.error) or timed_out or aborted or run.signal is not None or run.exit_code != 0
    result = BashResult(
        text=text,
        exit_code=run.exit_code,
        timed_out=timed_out,
        interrupted=aborted,
        output_chars=len(run.output),
        output_tail=run.output[-4096:],
        cwd=context.cwd,
        stdout=body,
    )
    return ToolResult(result, is_error=failed)


async def _wait(
    terminals: Terminals, terminal_id: str, context: ToolContext, timeout_s: float
) -> tuple[TerminalRun, bool, bool]:
    """Wait for the exit, racing the abort signal and the timeout; kill on either."""
    waiter = asyncio.ensure_future(terminals.wait(terminal_id))
    aborted = asyncio.ensure_future(context.abort.wait())
    try:
        done, _ = await asyncio.wait(
            {waiter, aborted}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        aborted.cancel()
    timed_out = not done
    was_aborted = waiter not in done and not timed_out
    exit_code: int | None = None
    sig: str | None = None
    errors: list[str] = []
    if waiter in done:
        try:
            exit_code, sig = waiter.result()
        except Exception as exc:
            errors.append(f"Could not learn how the command ended in the editor's terminal: {exc}")
    else:
        waiter.cancel()
        with contextlib.suppress(Exception):
            await terminals.kill(terminal_id)
    try:
        output, truncated = await terminals.output(terminal_id)
    except Exception as exc:
        output, truncated = "", False
        errors.append(f"Could not read the command's output from the editor's terminal: {exc}")
    run = TerminalRun(output, truncated, exit_code, sig, "\n".join(errors))
    return run, timed_out, was_aborted
