"""A fast path for the plain commands that make up most of what a model runs.

bashlex costs about half a millisecond per command; a permission decision against 200 rules must
take less than that in all. Commands written only with plain words (no quotes, no `$`, no globs, no
backslashes, no brackets or braces) joined by `&&`, `||`, `|` and `;`, with plain redirections, are
split here without it. Anything else, however harmless, returns None and goes to bashlex: this path
may only ever be narrower than the real parser, never different (a property test compares the two on
generated commands).
"""

from __future__ import annotations

import re

# Every character of a fast-path command. No quote, `$`, backtick, backslash, glob, bracket,
# brace, `#`, `!`, `~`, newline: each changes what bash does with the text.
_PLAIN = re.compile(r"[A-Za-z0-9_./:=@%+,\-\s|&;<>]*")
_TOKEN = re.compile(
    r"""
    (?P<space>[ \t]+)
    | (?P<op>&&|\|\||\||;)
    | (?P<dup>[0-9]*>&[0-9]+(?![^\s|&;<>]))  # `>&2x` writes a file `2x`; `2>&1-` moves fd 1
    | (?P<redir>&>>|&>|[0-9]*>>|[0-9]*>\||[0-9]*>|[0-9]*<)
    | (?P<word>[^\s|&;<>]+)
    """,
    re.VERBOSE,
)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_RESERVED = frozenset(
    {
        "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
        "do", "done", "in", "function", "time", "coproc", "{", "}", "!", "[[", "]]",
    }
)  # fmt: skip


def fast_split(
    command: str,
) -> list[tuple[str, list[tuple[str, str]], list[str], list[tuple[str, str | None]]]] | None:
    """[(text, assignments, words, redirects)] for a plain command, or None to use the parser.

    A redirect is (op, target); fd duplications (`2>&1`) have no target, as bashlex reports them.
    """
    if not _PLAIN.fullmatch(command) or "\n" in command or "\r" in command:
        return None
    tokens: list[tuple[str, str, int, int]] = []
    pos = 0
    while pos < len(command):
        m = _TOKEN.match(command, pos)
        if m is None:
            return None  # a lone `&` (background) or anything unexpected
        kind = m.lastgroup or ""
        if kind != "space":
            tokens.append((kind, m.group(), m.start(), m.end()))
        pos = m.end()
    commands: list[list[tuple[str, str, int, int]]] = [[]]
    for token in tokens:
        if token[0] == "op":
            commands.append([])
        else:
            commands[-1].append(token)
    out = []
    for parts in commands:
        if not parts:
            return None  # `a && && b`, a trailing operator, an empty command
        assignments: list[tuple[str, str]] = []
        words: list[str] = []
        redirects: list[tuple[str, str | None]] = []
        i = 0
        while i < len(parts):
            kind, text, _, _ = parts[i]
            if kind == "dup":
                redirects.append((">&", None))
            elif kind == "redir":
                if i + 1 >= len(parts) or parts[i + 1][0] != "word":
                    return None
                op = text.lstrip("0123456789")
                redirects.append((op, parts[i + 1][1]))
                i += 1
            else:
                if text in _RESERVED:
                    return None
                match = _ASSIGNMENT.match(text)
                if match and not words and redirects:
                    return (
                        None  # `>x A=1 ls`: bash assigns, bashlex sees a word; let bashlex decide
                    )
                if match and not words:
                    name, _, value = text.partition("=")
                    assignments.append((name.rstrip("+"), value))
                else:
                    words.append(text)
            i += 1
        if not words:
            return None
        out.append((command[parts[0][2] : parts[-1][3]], assignments, words, redirects))
    return out
