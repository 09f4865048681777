"""Claude Code's model aliases: `sonnet`, `opus`, `haiku` in a command's, skill's or agent's
`model:` frontmatter (and a subagent call's `model`) name these ids, the first-party defaults
Claude Code 2.1.332 sends (read from its model table; `ANTHROPIC_DEFAULT_<ALIAS>_MODEL`
overrides one, as there). A `[1m]` suffix (`sonnet[1m]`, `claude-sonnet-4-6[1m]`) asks for the
1M-token window: the id is sent without it and the window's beta header is added, as Claude Code
does. Anything else is a model id and is sent as written."""

from __future__ import annotations

import os
from collections.abc import Mapping

MODEL_ALIASES = {
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
    "haiku": "claude-haiku-5-5",
}


EXTENDED_SUFFIX = "[1m]"


def asks_extended_window(name: str) -> bool:
    """Whether `name` carries Claude Code's `[1m]` suffix (the 1M-token window)."""
    return name.lower().endswith(EXTENDED_SUFFIX)


def resolve_alias(name: str, env: Mapping[str, str] | None = None) -> str:
    """The model id `name` stands for, without a `[1m]` suffix (a non-alias is returned
    stripped)."""
    e = os.environ if env is None else env
    name = name.strip()
    if asks_extended_window(name):
        name = name[: -len(EXTENDED_SUFFIX)].strip()
    alias = name.lower()
    if alias in MODEL_ALIASES:
        return e.get(f"ANTHROPIC_DEFAULT_{alias.upper()}_MODEL") or MODEL_ALIASES[alias]
    return name
