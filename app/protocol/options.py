"""The SDK's flags as the engine's options (app.engine.options.EngineOptions).

`--system-prompt` replaces lathe's instructions (the environment block and memory files stay, as
Claude Code keeps its environment and CLAUDE.md context); `--append-system-prompt` adds to them;
`--tools` narrows the built-in tools; `--mcp-config` adds servers (`--strict-mcp-config`: only
those), SDK servers among them; `--json-schema` adds the StructuredOutput tool;
`--max-thinking-tokens` turns extended thinking on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from app.compose import engine_options
from app.engine.api import DEFAULT_INTRO, EngineOptions
from app.protocol.flags import ProtocolOptions
from tools.base import CanUseTool, JsonSchemaTool, ProgressCallback, ToolContext, ToolResult

if TYPE_CHECKING:
    # The parsed command line, for annotations only: the face layer above calls in with it.
    from app.cli import CliOptions

# What the model is told when the SDK passes `--system-prompt ""` (its default: no preset).
SDK_DEFAULT_INTRO = (
    "You are a coding agent (lathe), driven by a program through the Claude Agent SDK."
)


def intro_for(sdk: ProtocolOptions) -> str:
    if sdk.system_prompt is not None:
        base = sdk.system_prompt.strip() or SDK_DEFAULT_INTRO
    else:
        base = DEFAULT_INTRO
    if sdk.append_system_prompt:
        base = f"{base}\n\n{sdk.append_system_prompt}"
    if sdk.json_schema is not None:
        base = f"{base}\n\n{STRUCTURED_OUTPUT_INSTRUCTION}"
    return base


class StructuredOutputTool(JsonSchemaTool):
    """`--json-schema`: the model hands in its final answer as this tool's input, which the
    schema validates (an invalid one is a tool error the model sees and can correct); the result
    line carries it as `structured_output`, as Claude Code's StructuredOutput tool does."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        super().__init__(
            "StructuredOutput",
            "Return your final answer in the requested structured format. Call this tool exactly "
            "once, at the end, with the answer as its input.",
            schema,
        )
        self.value: dict[str, Any] | None = None

    def is_read_only(self, input: dict[str, Any]) -> bool:
        return True  # it only hands the answer over: nothing to ask about

    async def call(
        self,
        input: dict[str, Any],
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        self.value = dict(input)
        return ToolResult(data="Structured output provided successfully")


def structured_output_tool(sdk: ProtocolOptions) -> StructuredOutputTool | None:
    return StructuredOutputTool(sdk.json_schema) if sdk.json_schema is not None else None


STRUCTURED_OUTPUT_INSTRUCTION = (
    "When you have the final answer, call the StructuredOutput tool once with it; its input "
    "must match the tool's schema."
)


# The beta headers Claude Code 2.1.332 sends with these `output_config` fields.
TASK_BUDGET_BETA = "task-budgets-2026-03-13"
EFFORT_BETA = "effort-2025-11-24"


def request_extra(sdk: ProtocolOptions) -> dict[str, Any]:
    """Request parameters the SDK's flags ask for, as `messages.stream` keywords.

    `--max-thinking-tokens N`: extended thinking with that budget (the API wants at least 1024,
    and `max_tokens` above the budget); `--thinking adaptive` lets the model decide, `disabled`
    sends none; `--thinking-display` rides along. `--effort` and `--task-budget` go in the body's
    `output_config` (the budget with its beta header); `--betas` are `anthropic-beta` headers.
    """
    extra: dict[str, Any] = {}
    thinking: dict[str, Any] | None = None
    if sdk.thinking == "adaptive":
        thinking = {"type": "adaptive"}
    elif sdk.thinking != "disabled" and sdk.max_thinking_tokens is not None:
        budget = max(1024, sdk.max_thinking_tokens)
        thinking = {"type": "enabled", "budget_tokens": budget}
        extra["max_tokens"] = max(16_000, budget + 4_096)
    if thinking is not None:
        if sdk.thinking_display is not None:
            thinking["display"] = sdk.thinking_display
        extra["thinking"] = thinking
    output_config: dict[str, Any] = {}
    betas = list(sdk.betas)
    if sdk.effort is not None:
        output_config["effort"] = sdk.effort
        betas.append(EFFORT_BETA)
    if sdk.task_budget is not None:
        output_config["task_budget"] = {"type": "tokens", "total": sdk.task_budget}
        betas.append(TASK_BUDGET_BETA)
    if output_config:
        extra["extra_body"] = {"output_config": output_config}
    if betas:
        extra["extra_headers"] = {"anthropic-beta": ",".join(dict.fromkeys(betas))}
    return extra


def protocol_engine_options(opts: CliOptions) -> tuple[EngineOptions, StructuredOutputTool | None]:
    """The session the SDK's command line asks for, and the StructuredOutput tool if any."""
    sdk = opts.sdk
    structured = structured_output_tool(sdk)
    options = replace(
        engine_options(opts),
        intro=intro_for(sdk),
        tools=sdk.tools,
        extra_tools=(structured,) if structured is not None else (),
        mcp_servers=sdk.mcp_config,
        strict_mcp_config=sdk.strict_mcp_config,
        session_id=sdk.session_id,
        fork_session=sdk.fork_session,
        setting_sources=sdk.setting_sources,
        fallback_model=sdk.fallback_model,
        request_extra=request_extra(sdk),
        resume_at=sdk.resume_session_at,
        resume_drops_turn=sdk.resume_drops_turn,
    )
    return options, structured
