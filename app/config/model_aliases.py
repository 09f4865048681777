"""Claude Code's model aliases: `sonnet`, `opus`, `haiku` name these ids, the first-party defaults
Claude Code 2.1.332 sends (read from its model table; `ANTHROPIC_DEFAULT_<ALIAS>_MODEL`
overrides one, as there), wherever a model is named: the session's (`--model`, settings'
`model`, ANTHROPIC_MODEL, `/model`), a command's, skill's or agent's `model:` frontmatter, a
subagent call's `model`. The 1M-context forms `sonnet[1m]` and `opus[1m]` send the same ids
(measured, ext-r4 F7/F11). A `[1m]` suffix on any name is dropped from the id sent; on a model
that offers the 1M window behind its beta (`claude-sonnet-4-6[1m]`) it asks for that window and
its beta header, as Claude Code 2.1.332 sends them (measured: `sonnet[1m]` -> claude-sonnet-5-5
with no beta; `claude-sonnet-4-6[1m]` -> claude-sonnet-4-6 with context-1m-2025-08-07).
Anything else is a model id and is sent as written."""

from __future__ import annotations

import os
from collections.abc import Mapping

MODEL_ALIASES = {
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
    "haiku": "claude-haiku-5-5",
}
# `opusplan`: Claude Code 2.1.332 sends its sonnet id for it outside plan mode (measured, ext-r5
# F5; in plan mode it sends opus, which lathe does not switch to yet).
_PLAN_ALIASES = {"opusplan": "sonnet"}


EXTENDED_SUFFIX = "[1m]"


def asks_extended_window(name: str) -> bool:
    """Whether `name` carries Claude Code's `[1m]` suffix (the 1M-token window)."""
    return name.strip().lower().endswith(EXTENDED_SUFFIX)


def resolve_alias(name: str, env: Mapping[str, str] | None = None) -> str:
    """The model id `name` stands for, without a `[1m]` suffix (a non-alias is returned
    stripped)."""
    e = os.environ if env is None else env
    name = name.strip()
    if asks_extended_window(name):
        name = name[: -len(EXTENDED_SUFFIX)].strip()
    alias = _PLAN_ALIASES.get(name.lower(), name.lower())
    if alias in MODEL_ALIASES:
        return e.get(f"ANTHROPIC_DEFAULT_{alias.upper()}_MODEL") or MODEL_ALIASES[alias]
    return name
