"""Agent definitions given as JSON: `--agents JSON` (every mode: the TUI, `lathe -p`, the SDK
protocol) and the initialize request's `agents` (the SDK's ClaudeAgentOptions.agents).

Each entry reads as a `.claude/agents/NAME.md` file does (app/agents/loader.py): `description`
and `prompt` (the frontmatter's description and the body) are required; `tools` (absent or "*":
every tool), `disallowedTools` and `model` (sonnet, opus, haiku, inherit or a model id) are
optional. A definition replaces a file's or a built-in's of the same name, as Claude Code's
flag agents do. Fields lathe's agent files do not have are named in a warning; a malformed entry
is skipped with one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from app.agents.definitions import AgentDefinition

# Words joined by single spaces (`name: "spaced agent"`): Claude Code 2.1.332 lists and runs
# such an agent (measured, ext-r3 F7).
_NAME = re.compile(r"^[\w.:-]+(?: [\w.:-]+)*$")
KNOWN_FIELDS = frozenset({"description", "prompt", "tools", "disallowedTools", "model"})


class AgentSpecError(ValueError):
    """An agent definition lathe cannot use; the message names it."""


def _names(name: str, field: str, value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AgentSpecError(f"agent {name!r}: `{field}` must be a list of tool names")
    return tuple(value)


def sdk_agent(name: str, spec: Any) -> AgentDefinition:
    if not _NAME.match(name):
        raise AgentSpecError(f"{name!r} is not an agent name")
    if not isinstance(spec, Mapping):
        raise AgentSpecError(f"agent {name!r}: expected an object")
    description = spec.get("description")
    prompt = spec.get("prompt")
    if not isinstance(description, str) or not description.strip():
        raise AgentSpecError(f"agent {name!r}: no `description`")
    if not isinstance(prompt, str):
        raise AgentSpecError(f"agent {name!r}: no `prompt`")
    model = spec.get("model")
    if model is not None and not isinstance(model, str):
        raise AgentSpecError(f"agent {name!r}: `model` must be a string")
    tools = _names(name, "tools", spec.get("tools"))
    return AgentDefinition(
        name=name,
        description=description.strip(),
        system_prompt=prompt.strip(),
        tools=None if tools is None or tools == ("*",) else tools,
        disallowed=_names(name, "disallowedTools", spec.get("disallowedTools")) or (),
        model=model.strip() or None if isinstance(model, str) else None,
        source="sdk",
    )


def parse_agent_specs(specs: Any, warn: Callable[[str], None]) -> list[AgentDefinition]:
    """The usable definitions of a JSON object of agents; each problem goes to `warn`."""
    if not isinstance(specs, Mapping):
        return []
    definitions = []
    for name, spec in specs.items():
        try:
            definition = sdk_agent(str(name), spec)
        except AgentSpecError as exc:
            warn(f"{exc}; the agent is not defined")
            continue
        extra = sorted(set(spec) - KNOWN_FIELDS)
        if extra:
            warn(f"agent {name!r}: {', '.join(extra)} not supported by lathe; ignored")
        definitions.append(definition)
    return definitions
