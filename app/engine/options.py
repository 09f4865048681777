"""What a front end asks of a new session, in the engine's own terms (not the command line's),
and the error that says it cannot start.

The composition root (app/compose.py) turns the CLI's options into these; protocol front ends
(stream-json, ACP) build them from their own messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EngineOptions:
    model: str | None = None
    model_script: str | None = None
    permission_mode: str | None = None
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    settings: str | None = None
    add_dirs: tuple[str, ...] = ()
    max_turns: int | None = None
    continue_session: bool = False
    resume: str | None = None
    bare: bool = False
    # stream-json's --include-partial-messages: the raw stream events reach the sink too.
    include_partial_messages: bool = False
    # What a program driving lathe asks for (the Claude Agent SDK's flags, app/protocol):
    # the system prompt's instructions (None: lathe's own), the built-in tools offered by name
    # (None: all), tools the front end adds, MCP servers beside the settings' (`{"type": "sdk"}`
    # ones included; strict: only these), the new session's id, a resume that forks into a new
    # session, the settings sources read (None: all), a model to fall back to when the model is
    # overloaded, and request parameters (extended thinking).
    intro: str | None = None
    tools: tuple[str, ...] | None = None
    extra_tools: tuple[Any, ...] = ()
    mcp_servers: tuple[Mapping[str, Any], ...] = ()
    strict_mcp_config: bool = False
    session_id: str | None = None
    fork_session: bool = False
    setting_sources: tuple[str, ...] | None = None
    fallback_model: str | None = None
    request_extra: Mapping[str, Any] = field(default_factory=dict)
    # A resume that ends the history at this line uuid (with a new session: fork_session), and
    # the prompt uuid whose turn that cut must be exactly what it drops.
    resume_at: str | None = None
    resume_drops_turn: str | None = None


class SetupError(Exception):
    """The session cannot start; the message names the file or flag and the problem."""
