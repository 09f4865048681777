"""Argument substitution in a custom command's body, as Claude Code 2.1 does it (measured).

`$ARGUMENTS` is the whole argument text; `$ARGUMENTS[N]` and `$N` the N-th argument counted from
0 (`/cmd alpha "beta gamma"`: `$0` is alpha, `$1` is beta gamma; quotes group words). A missing
argument is the empty string. A body that uses none of them gets `ARGUMENTS: <text>` appended
when arguments were given, so they are never lost.
"""

from __future__ import annotations

import re
import shlex

_PLACEHOLDER = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$(\d+)(?!\d)")


def split_arguments(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:  # an unclosed quote: plain words, as a shell would not but a user means
        return text.split()


def substitute(body: str, args: str) -> str:
    words = split_arguments(args)
    used = False

    def repl(match: re.Match[str]) -> str:
        nonlocal used
        used = True
        index = match.group(1) or match.group(2)
        if index is None:
            return args
        n = int(index)
        return words[n] if n < len(words) else ""

    out = _PLACEHOLDER.sub(repl, body)
    if not used and args.strip():
        out = f"{out.rstrip()}\n\nARGUMENTS: {args}"
    return out
