"""Subagents a program defines in the SDK protocol: `--agents JSON` and the initialize request's
`agents` (the SDK's ClaudeAgentOptions.agents), made agent types of the running session's Agent
tool. In the TUI and plain `lathe -p`, app/compose.py reads `--agents` when it builds the
session. The parsing is app/agents/inline.py's (re-exported by app/engine/api.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.engine.api import SessionPort, parse_agent_specs


def define_agents(port: SessionPort, specs: Any, warn: Callable[[str], None]) -> list[str]:
    """Make the definitions the session's agent types; returns the names taken."""
    definitions = parse_agent_specs(specs, warn)
    if definitions and not port.controls.define_agents(definitions):
        warn("the Agent tool is not offered in this session; the agents cannot be used")
    return [d.name for d in definitions]


def agent_list(port: SessionPort) -> list[dict[str, Any]]:
    """initialize's `agents`: each type's name, description and model, as Claude Code lists them."""
    out: list[dict[str, Any]] = []
    for a in port.controls.agents():
        entry: dict[str, Any] = {"name": a.name, "description": a.description}
        if a.model:
            entry["model"] = a.model
        out.append(entry)
    return out
