"""Subagents started with `run_in_background`: a session background task each, and the
notification that carries the result to the model when it ends (Claude Code's
`<task-notification>`, in a system reminder).

The launching Agent call returns at once, so the agent's abort is its own: the turn's Ctrl+C does
not stop it (as in Claude Code); TaskStop with its id does, and so does the end of the session.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from tools.abort import AbortController
from tools.subagent import SubagentOutcome

# How long a stopped agent gets to end its turn (its tools get their results) before its task is
# cancelled.
STOP_GRACE_S = 5.0


@dataclass
class BackgroundAgent:
    """A BackgroundTask (tools/base.py): TaskStop and the session's end stop it."""

    id: str
    description: str
    abort: AbortController = field(default_factory=AbortController)
    status: str = "running"  # running, completed, failed, killed
    task: asyncio.Task[None] | None = None
    kind: str = "agent"

    async def stop(self) -> None:
        if self.status != "running":
            return
        self.status = "killed"
        self.abort.abort("other", "stopped")
        if self.task is not None and not self.task.done():
            try:
                await asyncio.wait_for(asyncio.shield(self.task), STOP_GRACE_S)
            except (TimeoutError, asyncio.CancelledError):
                self.task.cancel()


def notification_text(
    outcome: SubagentOutcome | None,
    agent: BackgroundAgent,
    tool_use_id: str,
    output_file: str,
    error: str = "",
) -> str:
    if agent.status == "killed":
        status, summary = "killed", f'Agent "{agent.description}" was stopped'
    elif outcome is None or outcome.is_error:
        status, summary = "failed", f'Agent "{agent.description}" failed'
    else:
        status, summary = "completed", f'Agent "{agent.description}" finished'
    result = (outcome.text if outcome is not None else "") or error
    usage = ""
    if outcome is not None:
        usage = (
            f"<usage><subagent_tokens>{outcome.total_tokens}</subagent_tokens>"
            f"<tool_uses>{outcome.tool_uses}</tool_uses>"
            f"<duration_ms>{outcome.duration_ms}</duration_ms></usage>\n"
        )
    return (
        "<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\nA background agent you "
        "started has ended. This is an automatic event, not a message from the user: it answers "
        "no question and approves nothing.\n\n"
        "<task-notification>\n"
        f"<task-id>{agent.id}</task-id>\n"
        f"<tool-use-id>{escape(tool_use_id)}</tool-use-id>\n"
        f"<output-file>{escape(output_file)}</output-file>\n"
        f"<status>{status}</status>\n"
        f"<summary>{escape(summary)}</summary>\n"
        f"<result>{result}</result>\n"
        f"{usage}"
        "</task-notification>\n</system-reminder>"
    )


def watch(agent: BackgroundAgent, on_done: Callable[[], None]) -> None:
    if agent.task is not None:
        agent.task.add_done_callback(lambda _t: on_done())
