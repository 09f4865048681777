"""What the Agent tool needs from the application: a runner for child conversations.

Tools cannot import the application (import-linter), so the engine injects an object that
satisfies `SubagentRunner` into the ToolContext (`context.subagents`). The tool only validates,
asks the runner to run one child conversation to its end and formats what comes back; the child's
model client, tool pipeline, permissions, hooks and transcript are the engine's business.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from tools.base import ToolContext, ToolProgress


@dataclass(frozen=True)
class AgentSummary:
    """One agent type as the model is told about it (the Agent tool's description)."""

    name: str
    description: str
    tools: str  # "*" or a readable list ("Read, Grep, Glob"; "All tools except Edit, Write")


@dataclass(frozen=True)
class SubagentRequest:
    description: str
    prompt: str
    subagent_type: str
    model: str | None = None


@dataclass(frozen=True)
class SubagentOutcome:
    """How a child conversation ended. `text` is its final assistant text."""

    agent_id: str
    agent_type: str
    text: str
    tool_uses: int
    total_tokens: int
    duration_ms: int
    tools_used: tuple[str, ...] = ()
    is_error: bool = False
    interrupted: bool = False
    prompt: str = ""  # what the parent asked it (Claude Code's hooks read it back)
    model: str = ""  # the model it ran on
    # The definition's `maxTurns` when the agent stopped there (0: it ended by itself).
    turn_limit: int = 0

    def hook_response(self) -> dict[str, Any]:
        """PostToolUse's `tool_response` of an Agent call, in Claude Code 2.1.332's shape
        (measured): not its per-request `usage` or harness counters, which lathe does not keep."""
        out: dict[str, Any] = {
            "status": "completed" if not (self.is_error or self.interrupted) else "failed",
            "prompt": self.prompt,
            "agentId": self.agent_id,
            "agentType": self.agent_type,
            "content": [{"type": "text", "text": self.text}],
        }
        if self.model:
            out["resolvedModel"] = self.model
        out.update(
            totalDurationMs=self.duration_ms,
            totalTokens=self.total_tokens,
            totalToolUseCount=self.tool_uses,
        )
        return out


@dataclass(frozen=True)
class BackgroundLaunch:
    """A subagent started in the background: its id (TaskStop ends it) and its transcript."""

    agent_id: str
    agent_type: str
    output_file: str


class UnknownAgentType(Exception):
    """The requested `subagent_type` is not defined; `message` lists the ones that are."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SubagentRunner(Protocol):
    def agents(self) -> tuple[AgentSummary, ...]:
        """The agent types a call may name."""
        ...

    async def run(
        self,
        request: SubagentRequest,
        context: ToolContext,
        on_progress: Callable[[ToolProgress], None],
    ) -> SubagentOutcome:
        """Run one child conversation to its end (or until `context.abort` fires).
        Raises UnknownAgentType for a type that is not defined."""
        ...

    def start(self, request: SubagentRequest, context: ToolContext) -> BackgroundLaunch:
        """Start a child conversation in the background and return at once; its result reaches
        the model later as a task notification. Raises UnknownAgentType."""
        ...

    def take_denials(self) -> list[Mapping[str, Any]]:
        """The calls denied inside the subagents since the last take (the parent turn's
        result lists them among its own permission denials), and forget them."""
        ...
