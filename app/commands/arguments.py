"""Argument substitution in a custom command's body, as Claude Code 2.1 does it (measured).

`$ARGUMENTS` is the whole argument text; `$ARGUMENTS[N]` and `$N` the N-th argument counted from
0 (`/cmd alpha "beta gamma"`: `$0` is alpha, `$1` is beta gamma; quotes group words). Either with
no N-th argument, or followed by a letter or digit (`$1x`, `$10` with 2 arguments), stays as
written, as in Claude Code (so prices like `$10` survive). A body where nothing was substituted
gets `\n\nARGUMENTS: <text>` appended when arguments were given, so they are never lost.

The arguments are text, never command lines: before substitution every `!` that could start a
`!`cmd`` line is escaped as Claude Code 2.1.332 escapes it (`` `! `` -> `` ` ! ``, `` !` `` ->
`` ! ` ``, a `!` at a line start or after a space -> a backslash before it), so `/say !`rm x`` or a model's Skill
`args` never run anything.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

_PLACEHOLDER = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$(\d+)(?!\w)")
_BANG_START = re.compile(r"(^|\s)!", re.MULTILINE)


def fill_variables(body: str, skill_dir: str | None, session_id: str) -> str:
    """`${CLAUDE_SKILL_DIR}` (a skill's folder; a command has none, so it stays as written) and
    `${CLAUDE_SESSION_ID}` in a body, before its arguments go in (Claude Code 2.1.332 fills them
    in skill and command bodies, and in their `!`cmd`` lines)."""
    if skill_dir is not None:
        body = body.replace("${CLAUDE_SKILL_DIR}", skill_dir)
    return body.replace("${CLAUDE_SESSION_ID}", session_id)


def fill_plugin_variables(body: str, plugin: Any) -> str:
    """A plugin's command or skill: `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` are its
    folders (braced only, as Claude Code replaces them; `$CLAUDE_PLUGIN_ROOT` is left alone)."""
    body = body.replace("${CLAUDE_PLUGIN_ROOT}", str(plugin.root))
    data = getattr(plugin, "data", None)
    return body.replace("${CLAUDE_PLUGIN_DATA}", str(data)) if data is not None else body


def escape_bangs(text: str) -> str:
    """Claude Code's escaping of argument text, so no `!`cmd`` can be formed from it."""
    text = text.replace("`!", "` !").replace("!`", "! `")
    return _BANG_START.sub(lambda m: m.group(1) + "\\!", text)


def split_arguments(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:  # an unclosed quote: plain words, as a shell would not but a user means
        return text.split()


def substitute(body: str, args: str, names: tuple[str, ...] = ()) -> str:
    """`names`: the frontmatter's `arguments:`, so `$name` is the argument at its place (empty
    when there is none, unlike `$N`)."""
    words = [escape_bangs(w) for w in split_arguments(args)]
    args = escape_bangs(args)
    used = False
    if names:
        position = {name: i for i, name in reversed(list(enumerate(names)))}
        named = re.compile(r"\$(" + "|".join(re.escape(n) for n in names) + r")(?!\w)")

        def by_name(match: re.Match[str]) -> str:
            nonlocal used
            n = position[match.group(1)]
            used = True
            # A name with no argument at its place is empty (Claude Code 2.1.332: `/named prod`
            # gives `TARGET=prod MODE=`, measured by ext-fix6b; `$N` is kept as written).
            return words[n] if n < len(words) else ""

        body = named.sub(by_name, body)

    def repl(match: re.Match[str]) -> str:
        nonlocal used
        if match.group(2) is not None:
            n = int(match.group(2))
            if n >= len(words):
                return match.group(0)
            used = True
            return words[n]
        if match.group(1) is None:
            used = True
            return args
        n = int(match.group(1))
        if n >= len(words):
            return match.group(0)  # as `$N`: Claude Code 2.1.332 keeps it as written (ext-r4 F1)
        used = True
        return words[n]

    out = _PLACEHOLDER.sub(repl, body)
    if not used and args.strip():
        out = f"{out}\n\nARGUMENTS: {args}"
    return out
