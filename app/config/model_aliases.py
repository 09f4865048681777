"""Claude Code's model aliases: `sonnet`, `opus`, `haiku` name these ids, the first-party defaults
Claude Code 2.1.332 sends (read from its model table; `ANTHROPIC_DEFAULT_<ALIAS>_MODEL`
overrides one, as there), wherever a model is named: the session's (`--model`, settings'
`model`, ANTHROPIC_MODEL, `/model`), a command's, skill's or agent's `model:` frontmatter, a
subagent call's `model`. The 1M-context forms `sonnet[1m]` and `opus[1m]` send the same ids
(measured, ext-r4 F7/F11; lathe sends no 1M-context beta). Anything else is a model id and is
sent as written."""

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
    if alias.endswith("[1m]"):
        alias = alias[: -len("[1m]")].strip()
    if alias in MODEL_ALIASES:
        return e.get(f"ANTHROPIC_DEFAULT_{alias.upper()}_MODEL") or MODEL_ALIASES[alias]
    return name.strip()
