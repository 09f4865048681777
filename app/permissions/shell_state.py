"""Shell variables a command sets without writing `NAME=VALUE`, when they change what runs.

`PATH=tools ls`, `export PATH=..` and `declare PATH=..` are judged where they are written (the
part's assignments, tools.shell.commands.exported_danger). bash has more ways to set a variable:
a `for` loop's name (`for PATH in tools; do ls; done` runs ./tools/ls), `read`, `mapfile` /
`readarray`, `getopts`, `wait -p` and `printf -v` store into the names they are given, `let`
assigns arithmetic, and `unset PATH` makes bash look programs up in the working folder. After any
of them naming a variable that decides which program a word runs or which file a path names
(`PATH`, `HOME` for `~`, `PWD` for `~+`, `OLDPWD` for `~-`, `CDPATH`, `IFS`, and every variable
of is_dangerous_var), no later part of the command can be judged by its words: it is never
approved by the read-only set or a rule, and in bypassPermissions it is not run while deny rules
exist (they could not see what it runs or reads).
"""

from __future__ import annotations

import re

from tools.shell import ShellAnalysis, SimpleCommand
from tools.shell.commands import base_name, is_dangerous_var

# Beside is_dangerous_var: the ones tilde expansion and `cd` read.
# HISTFILE: `history -w` writes there (`history -s` puts any text in it first).
_PATH_VARS = frozenset({"PATH", "HOME", "PWD", "OLDPWD", "CDPATH", "IFS", "DIRSTACK", "HISTFILE"})
# Options of `read` and `mapfile` that take a value (the value of `read -a` is a name).
_READ_VALUE = frozenset("adinNptu")
_MAPFILE_VALUE = frozenset("dnOsuCc")
# Words before a builtin that still run it: `builtin read PATH`, `command read PATH`.
_PASS_THROUGH = frozenset({"builtin", "command"})
_DECLARERS = frozenset({"declare", "typeset", "local", "export", "readonly"})
_LEADING_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)")


def state_var(name: str) -> bool:
    """A variable whose value changes which program runs or which file a path word names."""
    return name in _PATH_VARS or is_dangerous_var(name)


def _options(args: tuple[str, ...], valued: frozenset[str]) -> tuple[list[str], list[str]]:
    """getopt-style: (the values of the options in `valued`, with their letter first, and the
    operands after the options)."""
    values: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        for k, c in enumerate(a[1:], start=1):
            if c in valued:
                rest = a[k + 1 :]
                if rest:
                    values.append(c + rest)
                elif i + 1 < len(args):
                    i += 1
                    values.append(c + args[i])
                break
        i += 1
    return values, list(args[i:])


def builtin_targets(words: tuple[str, ...]) -> list[str]:
    """The variable names this builtin call stores into (`read -ra HOME` -> HOME)."""
    while words and base_name(words[0]) in _PASS_THROUGH and len(words) > 1:
        words = words[1:]
    if not words:
        return []
    name, args = words[0], words[1:]
    if name == "read":
        values, operands = _options(args, _READ_VALUE)
        arrays = [v[1:] for v in values if v.startswith("a")]
        return [*arrays, *operands] or ["REPLY"]
    if name in ("mapfile", "readarray"):
        _, operands = _options(args, _MAPFILE_VALUE)
        return operands[:1] or ["MAPFILE"]
    if name == "getopts":
        return [args[1]] if len(args) > 1 else []
    if name in ("wait", "printf"):
        letter = "p" if name == "wait" else "v"
        values, _ = _options(args, frozenset(letter))
        return [v[1:] for v in values if v.startswith(letter)]
    if name == "unset":
        return [a for a in args if not a.startswith("-")]
    if name == "let":  # `let PATH=1`, `let 'HOME+=1'`, `let ++IFS`
        return [m.group(1) for a in args if (m := _LEADING_NAME.match(a.lstrip("+-")))]
    if name in _DECLARERS:  # `export PWD=/etc`, `local -n OLDPWD`
        return [a.split("=", 1)[0] for a in args if not a.startswith(("-", "+"))]
    return []


def _part_names(part: SimpleCommand) -> list[tuple[str, str]]:
    """(name, how) for every state variable this part sets in a way its words do not show as an
    assignment of a dangerous variable (those are judged where they are written)."""
    out = [(n, f"`{part.words[0]} {n}`") for n in builtin_targets(part.words) if state_var(n)]
    # `PWD=/etc; cat ~+/passwd`, `OLDPWD=...`: plain assignments is_dangerous_var leaves out.
    out += [(k, f"`{k}=`") for k, _ in part.assignments if state_var(k) and not is_dangerous_var(k)]
    return out


def state_change(analysis: ShellAnalysis) -> str:
    """Why the command may change what a later word of it runs or names, or "" (worked out
    once per analysis: every part's verdict asks)."""
    cached: str | None = analysis.__dict__.get("_state_change")
    if cached is None:
        cached = _state_change(analysis)
        object.__setattr__(analysis, "_state_change", cached)
    return cached


def _state_change(analysis: ShellAnalysis) -> str:
    written = {k for p in (*analysis.parts, *analysis.nested) for k, _ in p.assignments}
    # The strict lexer's names not written as a part's assignment: a `for` loop's variable.
    for name in sorted(analysis.assigned - written):
        if state_var(name):
            return f"its `for {name}` loop sets {name}, which changes what later words run or name"
    for part in (*analysis.parts, *analysis.nested):
        for name, how in _part_names(part):
            return f"{how} sets {name}, which changes what later words run or name"
    return ""
