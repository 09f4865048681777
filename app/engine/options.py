"""What a front end asks of a new session, in the engine's own terms (not the command line's).

The composition root (app/compose.py) turns the CLI's options into these; protocol front ends
(stream-json, ACP) build them from their own messages.
"""

from __future__ import annotations

from dataclasses import dataclass


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
