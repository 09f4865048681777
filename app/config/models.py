"""The settings schema (pydantic). Each section is typed; sections owned by other parts of lathe
(hooks, MCP, model, theme, env) are permissive placeholders those parts refine."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    field_validator,
)

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]
PERMISSION_MODES: tuple[PermissionMode, ...] = (
    "default",
    "acceptEdits",
    "plan",
    "bypassPermissions",
    "dontAsk",
)


class PermissionsSettings(BaseModel):
    """The `[permissions]` table (Claude Code's `permissions` object in JSON). Unknown keys are
    kept and reported as warnings: a typo must not cost the valid rules beside it."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    allow: list[str] = Field(default_factory=list)
    """Rules that approve calls without asking, e.g. `Bash(npm run test:*)`."""
    deny: list[str] = Field(default_factory=list)
    """Rules that refuse calls; a deny at any source beats an allow anywhere."""
    ask: list[str] = Field(default_factory=list)
    """Rules that always ask, even when an allow rule or the mode would approve."""
    default_mode: PermissionMode | None = Field(
        default=None, validation_alias=AliasChoices("default_mode", "defaultMode")
    )
    """The permission mode a session starts in."""
    additional_directories: list[str] = Field(
        default_factory=list,
        validation_alias=AliasChoices("additional_directories", "additionalDirectories"),
    )
    """More working folders besides the project."""
    disable_bypass_mode: bool = Field(
        default=False,
        validation_alias=AliasChoices("disable_bypass_mode", "disableBypassPermissionsMode"),
    )
    """Policy knob: refuse bypassPermissions mode (Claude Code's value "disable" also works)."""

    @field_validator("disable_bypass_mode", mode="before")
    @classmethod
    def _coerce_disable(cls, value: Any) -> Any:
        return value == "disable" if isinstance(value, str) else value


class McpSettings(BaseModel):
    model_config = ConfigDict(extra="allow")

    servers: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """`[mcp.servers.NAME]` tables: how to start or reach each server."""


class ContextSettings(BaseModel):
    """The `[context]` table: the model's window, automatic compaction, old tool results.

    Strict types and ranges: `window = true` or `auto_compact = "yes"` is a mistake to report
    (settings fail closed), not a value to coerce into 1 or True."""

    model_config = ConfigDict(extra="forbid")

    window: StrictInt | None = Field(default=None, gt=0)
    """The context window in tokens (default: 200000 for Claude models, or 1000000 with
    `extended_window` on a model that offers it)."""
    extended_window: StrictBool | None = None
    """Ask for the 1M-token window (the `context-1m-2025-08-07` beta) where the model has it."""
    auto_compact: StrictBool | None = None
    """Summarise the conversation automatically when it nears the window (default true)."""
    auto_compact_threshold: StrictFloat | StrictInt | None = Field(default=None, gt=0, le=1)
    """Share of the window (after reserving the output tokens) that triggers it (default 0.9)."""
    clear_tool_results: StrictBool | None = None
    """Replace old Read/Grep/Glob/Bash outputs by a placeholder beyond a budget (default true)."""
    tool_results_budget: StrictInt | None = Field(default=None, gt=0)
    """Tokens of recent clearable tool output kept verbatim (default 40000)."""
    reread_files_budget: StrictInt | None = Field(default=None, ge=0)
    """Tokens of recently read files re-read from disk after a compaction (default 30000)."""


class Settings(BaseModel):
    """One settings file. Unknown top-level keys are kept (reported as warnings by the loader)."""

    model_config = ConfigDict(extra="allow")

    permissions: PermissionsSettings = Field(default_factory=PermissionsSettings)
    """Permission rules and mode."""
    hooks: dict[str, Any] = Field(default_factory=dict)
    """Event name -> hook entries (matcher and handlers), in Claude Code's shape."""
    mcp: McpSettings = Field(default_factory=McpSettings)
    """MCP servers."""
    model: str | None = None
    """Model id."""
    theme: str | None = None
    """Colour theme name."""
    env: dict[str, str] = Field(default_factory=dict)
    """Environment variables set for the session (its tools, hooks and MCP servers)."""
    passthrough_env: list[str] = Field(default_factory=list)
    """Credentials (e.g. `ANTHROPIC_API_KEY`) that Bash, hooks and MCP servers may see; lathe
    removes them from those programs' environment otherwise."""
    keymap: dict[str, str] = Field(default_factory=dict)
    """TUI key remapping: binding id -> keys, e.g. `interrupt_esc = "ctrl+g"`."""
    progress_panel: Literal["bottom", "top", "hidden"] | None = None
    """Where the live tool-progress panel sits in the TUI."""
    mouse: StrictBool | None = None
    """Whether the TUI captures the mouse (clicks, wheel); F2 toggles it and saves the choice."""
    context: ContextSettings = Field(default_factory=ContextSettings)
    """Context accounting and compaction."""
    cleanup_period_days: int | None = Field(
        default=None,
        ge=1,
        validation_alias=AliasChoices("cleanup_period_days", "cleanupPeriodDays"),
    )
    """Days a session's state (persisted tool outputs) and transcript are kept after its last
    use (default 30, as Claude Code's `cleanupPeriodDays`)."""
    api_key_helper: str | None = Field(
        default=None, validation_alias=AliasChoices("api_key_helper", "apiKeyHelper")
    )
    """A shell command whose stdout is the API key (Claude Code's `apiKeyHelper`); run with a
    time limit, cached, and run again after 5 minutes or a 401."""
    disable_all_hooks: StrictBool | None = Field(
        default=None, validation_alias=AliasChoices("disable_all_hooks", "disableAllHooks")
    )
    """`true`: no hook runs this session (Claude Code's `disableAllHooks`); from policy it also
    turns off the policy's hooks, from any other file only the others'."""
    status_line: dict[str, Any] | None = Field(
        default=None, validation_alias=AliasChoices("status_line", "statusLine")
    )
    """`{type = "command", command = "..."}`: its first output line is the TUI's status line."""
