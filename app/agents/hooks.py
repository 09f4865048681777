"""An agent definition's own `hooks:` frontmatter, as Claude Code 2.1.332 runs them.

    ---
    name: guarded
    hooks:
      PreToolUse:
        - matcher: Bash
          hooks:
            - type: command
              command: ./check.sh
      Stop:
        - hooks: [{type: command, command: ./done.sh}]
    ---

They run while that agent's subagent runs and for its events only (measured, ext-r4 F15: its
PreToolUse ran for the subagent's Bash and not for the main session's; its `Stop` ran when the
subagent ended, as SubagentStop, which is what Claude Code turns it into). A definition whose
hooks do not read is skipped with the reason, as a skill's is: a guard that cannot be read is
never dropped silently. A project's agent file is the repository's code: its hooks run only
where the project's own hooks would (a trusted folder), as a project skill's.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from app.memory.frontmatter import FrontmatterError
from app.memory.yaml_block import YamlBlockError, nested_block, parse_block


def parse_agent_hooks(text: str, path: str) -> str:
    """The frontmatter's `hooks:` checked as a settings file's would be, as JSON text ("" when
    there are none). Raises FrontmatterError with the reason."""
    from app.config.hooks import HookSource, parse_hook_sources

    try:
        block = nested_block(text, "hooks")
        hooks = parse_block(block) if block is not None else None
    except YamlBlockError as exc:
        raise FrontmatterError(f"hooks: {exc}") from None
    if hooks is None:
        return ""
    config = parse_hook_sources([HookSource("agent", path, hooks)], trusted=True)
    errors = [p for p in config.problems if p.severity == "error"]
    if errors:
        raise FrontmatterError(f"hooks: {errors[0].message}")
    return json.dumps(hooks)


def agent_handlers(hooks_json: str, path: str) -> tuple[Any, ...]:
    """The handlers to add to the subagent's own hook runner, `Stop` made SubagentStop."""
    from app.config.hooks import HookSource, Matcher, parse_hook_sources

    hooks = json.loads(hooks_json)
    config = parse_hook_sources([HookSource("agent", path, hooks)], trusted=True)
    out = []
    for handler in config.handlers:
        if handler.event == "Stop":
            handler = dataclasses.replace(handler, event="SubagentStop", matcher=Matcher(""))
        out.append(handler)
    return tuple(out)


def enter_agent_hooks(
    runner: Any, hooks_json: str, path: str, untrusted: bool, warn: Callable[[str], None], name: str
) -> None:
    """Add the agent's handlers to `runner` (the subagent's own copy of the session's runner,
    so nothing reaches the parent's events)."""
    if not hooks_json or runner is None or not hasattr(runner, "add_handlers"):
        return
    if untrusted:
        warn(f"agent {name}: hooks ignored: this folder is not trusted")
        return
    runner.add_handlers(agent_handlers(hooks_json, path))
