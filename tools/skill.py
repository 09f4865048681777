"""Skill: load a skill's instructions into the turn, as Claude Code 2.1 does (measured).

The result is `Launching skill: NAME`, followed in the same user message by a text block with
`Base directory for this skill: DIR` and the skill's body (arguments substituted), so the model
can find the skill's own files. The skills come from the session's catalog
(`context.options.extra["skills"]`, app/skills/catalog.py), which also applies the skill's
`allowed-tools` as rules and its `model` for the rest of the turn. A skill without
`allowed-tools` runs without asking; one with them asks (allow it with `Skill(name)`), as in
Claude Code.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from pydantic import Field

from tools.base import (
    CanUseTool,
    ProgressCallback,
    ResultView,
    Tool,
    ToolContext,
    ToolError,
    ToolInput,
    ToolResult,
)
from tools.decisions import DecisionReason, PermissionDecision, ValidationResult


class SkillEntry(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def base_dir(self) -> Path: ...
    @property
    def allowed_tools(self) -> tuple[str, ...]: ...
    @property
    def model_invocable(self) -> bool: ...


class SkillCatalog(Protocol):
    def lookup(self, name: str) -> SkillEntry | None: ...

    async def invoke(self, name: str, args: str) -> str:
        """The text the model follows; enters the skill's scope for the rest of the turn."""
        ...


class SkillInput(ToolInput):
    skill: str = Field(
        description="The name of a skill from the available-skills list. Do not guess names."
    )
    args: str | None = Field(default=None, description="Optional arguments for the skill")


def _catalog(context: ToolContext) -> SkillCatalog | None:
    found = context.options.extra.get("skills")
    return found if found is not None and hasattr(found, "lookup") else None


def _name(input: SkillInput) -> str:
    return input.skill.strip().lstrip("/")


def refused_text(name: str) -> str:
    return (
        f"Skill {name} cannot be used with Skill tool due to disable-model-invocation. Ask the "
        f"user to run /{name} themselves — it cannot be invoked via the Skill tool. Do not "
        "replicate this skill's workflow by other means — it is reserved for explicit user "
        "invocation."
    )


class SkillTool(Tool[SkillInput]):
    name = "Skill"
    search_hint = "load a skill's instructions (a SKILL.md folder) into the turn"
    input_model = SkillInput
    # Claude Code offers skills in plan mode; the skill's own tool calls still obey plan mode
    # (read by app/permissions/decider.py).
    usable_in_plan_mode = True
    offers_skills = True

    def summary(self, input: SkillInput) -> str:
        return _name(input) + (f" {input.args}" if input.args else "")

    def permission_subject(self, input: SkillInput) -> str | None:
        return _name(input)  # `Skill(name)` rules match the skill's name

    def rule_specifier_matches(self, spec: str, name: str) -> bool:
        """Claude Code 2.1.332's reading of a `Skill(...)` rule (read from its source): a leading
        `/` is dropped; `pre:*` or `pre *` covers every name starting with `pre` (`Skill(ts:*)`
        covers `tsk`), and its own text; anything else is the exact, case-sensitive name."""
        spec = spec.removeprefix("/")
        if spec.endswith(":*") or spec.endswith(" *"):
            return name == spec or name.startswith(spec[:-2])
        return name == spec

    def permission_subject_names(self, input: SkillInput, context: ToolContext) -> tuple[str, ...]:
        """A skill's folder name and its frontmatter `name` both reach it, so a deny rule written
        with either holds for a call using the other (the decider asks for these)."""
        catalog = _catalog(context)
        entry = catalog.lookup(_name(input)) if catalog is not None else None
        if entry is None:
            return ()
        return tuple(n for n in (entry.name, str(getattr(entry, "display_name", ""))) if n)

    async def validate_input(self, input: SkillInput, context: ToolContext) -> ValidationResult:
        catalog = _catalog(context)
        entry = catalog.lookup(_name(input)) if catalog is not None else None
        if entry is None:
            return ValidationResult.failure(f"Unknown skill: {_name(input)}", error_code=2)
        if not entry.model_invocable:
            return ValidationResult.failure(refused_text(entry.name), error_code=4)
        return ValidationResult.success()

    async def check_permissions(
        self, input: SkillInput, context: ToolContext
    ) -> PermissionDecision:
        catalog = _catalog(context)
        entry = catalog.lookup(_name(input)) if catalog is not None else None
        if entry is not None and not entry.allowed_tools and not getattr(entry, "hooks", None):
            # Only instructions: nothing runs that the rules would not ask about anyway.
            text = f"the skill {entry.name} has no allowed-tools, so it runs without asking"
            return PermissionDecision.allow(DecisionReason("tool", text))
        # allowed-tools widen what runs unasked, and hooks run programs: the rules
        # (`Skill(name)`) or the user decide, as in Claude Code.
        return PermissionDecision.passthrough(f"Execute skill: {_name(input)}")

    def result_summary(self, data: Any) -> str:
        """Claude Code 2.1.332's line (read from its binary, seen in tmux): "Loaded skill", with
        "· 2 tools allowed" when the skill has allowed-tools; a forked skill's is "Done"."""
        if not isinstance(data, Mapping):
            return ""
        if "result" in data:
            return "Done"
        allowed = data.get("allowedTools")
        count = len(allowed) if isinstance(allowed, list) else 0
        if count:
            return f"Loaded skill · {count} tool{'s' if count != 1 else ''} allowed"
        return "Loaded skill"

    def result_view(self, data: Any, is_error: bool) -> ResultView | None:
        """The line alone: the model's "Launching skill: NAME" is not the person's; a forked
        skill shows its subagent's report, as an Agent block does."""
        if isinstance(data, Mapping) and not is_error and "commandName" in data:
            report = str(data.get("result", "")).strip()
            return ResultView(self.result_summary(data), report, own_body=True)
        return super().result_view(data, is_error)

    def result_from_record(self, recorded: Any, content: str) -> dict[str, Any] | None:
        """The transcript's `toolUseResult` is this data as it was (Claude Code's shape:
        `{success, commandName, allowedTools?}`, a forked skill's with `result`)."""
        if isinstance(recorded, Mapping) and isinstance(recorded.get("commandName"), str):
            return dict(recorded)
        return None

    def to_result_content(self, data: Any) -> str:
        if isinstance(data, dict) and "result" in data:
            return (
                f'Skill "{data.get("commandName", "")}" completed (forked execution).\n\n'
                f"Result:\n{data['result']}"
            )
        if isinstance(data, dict):
            return f"Launching skill: {data.get('commandName', '')}"
        return str(data)

    async def call(
        self,
        input: SkillInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        catalog = _catalog(context)
        entry = catalog.lookup(_name(input)) if catalog is not None else None
        if catalog is None or entry is None:
            raise ToolError(f"Unknown skill: {_name(input)}")
        text = await catalog.invoke(entry.name, input.args or "")
        data: dict[str, Any] = {"success": True, "commandName": entry.name}
        if entry.allowed_tools:
            data["allowedTools"] = list(entry.allowed_tools)
        fork = getattr(entry, "fork_agent", "")
        if fork and context.subagents is not None:
            return await _forked(entry.name, fork, text, data, context, on_progress)
        return ToolResult(data=data, extra_content=({"type": "text", "text": text},))


async def _forked(
    name: str,
    agent_type: str,
    prompt: str,
    data: dict[str, Any],
    context: ToolContext,
    on_progress: ProgressCallback,
) -> ToolResult:
    """A `context: fork` skill: its text is the prompt of a subagent of its agent type (Claude
    Code 2.1.332: "Skill "NAME" completed (forked execution)." with the agent's final text),
    so the main conversation never holds the skill's instructions or its tools' output."""
    from tools.subagent import SubagentRequest, UnknownAgentType

    runner = context.subagents
    if runner is None:
        raise ToolError(f"Skill {name} runs as a subagent, and none can be started here")
    request = SubagentRequest(description=name, prompt=prompt, subagent_type=agent_type)
    try:
        outcome = await runner.run(request, context, on_progress)
    except UnknownAgentType as exc:
        raise ToolError(exc.message) from None
    if outcome.is_error:
        raise ToolError(f"Skill {name} (forked, {agent_type}) failed: {outcome.text}")
    return ToolResult(data={**data, "result": outcome.text, "agentId": outcome.agent_id})
