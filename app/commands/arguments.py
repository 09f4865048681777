"""Argument substitution in a custom command's body, as Claude Code 2.1 does it (measured).

`$ARGUMENTS` is the whole argument text; `$ARGUMENTS[N]` and `$N` the N-th argument counted from
0 (`/cmd alpha "beta gamma"`: `$0` is alpha, `$1` is beta gamma; quotes group words). `$N` with
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

_PLACEHOLDER = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$(\d+)(?!\w)")
_BANG_START = re.compile(r"(^|\s)!", re.MULTILINE)


def escape_bangs(text: str) -> str:
    """Claude Code's escaping of argument text, so no `!`cmd`` can be formed from it."""
    text = text.replace("`!", "` !").replace("!`", "! `")
    return _BANG_START.sub(lambda m: m.group(1) + "\\!", text)


def split_arguments(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:  # an unclosed quote: plain words, as a shell would not but a user means
        return text.split()


def substitute(body: str, args: str) -> str:
    words = [escape_bangs(w) for w in split_arguments(args)]
    args = escape_bangs(args)
    used = False

    def repl(match: re.Match[str]) -> str:
        nonlocal used
        if match.group(2) is not None:
            n = int(match.group(2))
            if n >= len(words):
                return match.group(0)
            used = True
            return words[n]
        used = True
        if match.group(1) is None:
            return args
        n = int(match.group(1))
        return words[n] if n < len(words) else ""

    out = _PLACEHOLDER.sub(repl, body)
    if not used and args.strip():
        out = f"{out}\n\nARGUMENTS: {args}"
    return out
