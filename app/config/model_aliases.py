"""Claude Code's model aliases: `sonnet`, `opus`, `haiku` in a command's, skill's or agent's
`model:` frontmatter (and a subagent call's `model`) name these ids, the first-party defaults
Claude Code 2.1.332 sends (read from its model table; `ANTHROPIC_DEFAULT_<ALIAS>_MODEL`
overrides one, as there). Anything else is a model id and is sent as written."""

from __future__ import annotations

import os
from collections.abc import Mapping

MODEL_ALIASES = {
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
    "haiku": "claude-haiku-5-5",
}


def resolve_alias(name: str, env: Mapping[str, str] | None = None) -> str:
    """The model id `name` stands for (a non-alias is returned stripped)."""
    e = os.environ if env is None else env
    alias = name.strip().lower()
    if alias in MODEL_ALIASES:
        return e.get(f"ANTHROPIC_DEFAULT_{alias.upper()}_MODEL") or MODEL_ALIASES[alias]
    return name.strip()
