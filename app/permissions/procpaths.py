"""Process secrets under /proc: never readable or writable through any tool, in any mode.

`/proc/<pid>/environ` holds a process's environment (lathe's own holds ANTHROPIC_API_KEY, and
its parent's too); `/proc/<pid>/mem` is its memory, readable and writable by root. No rule and no
mode covers them: not `Read`, not `Bash(cat:*)`, not bypassPermissions. A shell word that could
name one (a variable or glob under /proc, `/proc/$PPID/environ`) is refused too, since what it
names is only known when it runs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator

from tools.shell import ShellAnalysis, allow_form, analyze, inner_code

_SECRET = re.compile(r"^/proc/[^/]+/(?:task/[^/]+/)?(?:environ|mem)$")
# Folders a recursive reader (grep -r, rg, tar) would walk into a secret from.
_REACHES = re.compile(r"^/(?:proc(?:/[^/]+(?:/task(?:/[^/]+)?)?)?)?$")
_DYNAMIC = ("$", "`")
_GLOB = ("*", "?", "[", "{")
_HINTS = ("proc", "environ", "mem")
_MAX_DEPTH = 4
_RECURSIVE = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "tar", "zip", "rsync", "cp"})


def secret_path(path: str) -> bool:
    """Whether this absolute path (as written or through its links) is a process secret."""
    norm = os.path.normpath(path)
    if _SECRET.match(norm):
        return True
    if not norm.startswith("/proc") and "/" not in norm[1:]:
        return False
    try:
        real = os.path.realpath(norm)
    except (OSError, ValueError):
        return True
    return bool(_SECRET.match(real))


def reaches_secret(folder: str) -> bool:
    """Whether reading everything below `folder` would read a process secret."""
    try:
        real = os.path.realpath(folder)
    except (OSError, ValueError):
        real = folder
    return any(_REACHES.match(os.path.normpath(p)) for p in (folder, real))


def tool_path_secret(cands: tuple[str, ...], walks: bool) -> str:
    """Why a Read/Edit/Grep/Glob path is refused, or ""."""
    for c in cands:
        if secret_path(c):
            return f"{c} holds a process's environment or memory (secrets such as API keys)"
        if walks and reaches_secret(c):
            return f"searching {c} reads processes' environments (secrets such as API keys)"
    return ""


def _words(analysis: ShellAnalysis, depth: int = 0) -> Iterator[tuple[str, bool]]:
    """(word, whether its command reads folders recursively) for every word the command holds."""
    for part in (*analysis.parts, *analysis.nested):
        form = allow_form(part.words) or part.words
        walks = bool(form) and os.path.basename(form[0]) in _RECURSIVE
        for w in part.words:
            yield w, walks
        for _, value in part.assignments:
            yield value, False
        for r in part.redirects:
            if r.target is not None:
                yield r.target, False
        code = inner_code(part.words)
        if code is not None and depth < _MAX_DEPTH:
            yield from _words(analyze(code), depth + 1)


def _pieces(word: str) -> list[str]:
    """The word and the paths inside it (`if=/proc/...`, `--file=/proc/...`, `-f/proc/...`)."""
    out = [word]
    if "=" in word:
        out.append(word.split("=", 1)[1])
    slash = word.find("/")
    if slash > 0:
        out.append(word[slash:])
    return out


def bash_secret(
    analysis: ShellAnalysis,
    cwds: list[str],
    cwd_known: bool,
    home: str,
    expand: Callable[[str, str, str], tuple[str, ...]],
) -> str:
    """Why this command may touch a process secret, or "". `expand(word, cwd, home)` gives every
    path a static word names (globs and braces expanded), () when it cannot tell."""
    text = analysis.command
    why = _ps_environment(analysis) if "ps" in text else ""
    if why:
        return why
    if not any(h in text for h in (*_HINTS, *_GLOB, *_DYNAMIC)) and not any(
        c.startswith("/proc") for c in cwds
    ):
        return ""  # the common case: nothing that can name /proc
    if not analysis.analysable:
        if any(h in text for h in _HINTS):
            return "the command mentions /proc and cannot be analysed"
        return ""
    in_proc = any(c.startswith("/proc") for c in cwds)
    text_hint = "/proc" in text or "environ" in text
    for word, walks in _words(analysis):
        for piece in _pieces(word):
            hint = any(h in piece for h in _HINTS)
            if any(d in piece for d in _DYNAMIC):
                # A variable may carry the rest (`a=/proc; cat $a/1/environ`), and a dynamic
                # first folder (`/p$x/1/e*`) may be /proc itself.
                first = piece[1:].split("/", 1)[0] if piece.startswith("/") else ""
                dyn_root = any(d in first for d in _DYNAMIC)
                if hint or in_proc or text_hint or dyn_root:
                    return f"`{word}` may name a process secret under /proc, known only at run time"
                continue
            plain = not (hint or in_proc or walks or any(g in piece for g in _GLOB))
            # A plain word still may be a link made earlier (`ln -s /proc/self/environ e`).
            if plain and not any(os.path.islink(os.path.join(c, piece)) for c in cwds):
                continue
            base = piece.rstrip("/").rsplit("/", 1)[-1]
            if not cwd_known and base in ("environ", "mem"):
                return f"`{word}` may name a process secret under /proc"
            for cwd in cwds:
                cands = expand(piece, cwd, home)
                if not cands and hint:
                    return f"`{word}` may name a process secret under /proc"
                for c in cands:
                    if secret_path(c) or (walks and reaches_secret(c)):
                        return f"`{word}` names a process secret ({c})"
    return ""


def _ps_environment(analysis: ShellAnalysis) -> str:
    """`ps e`, `ps auxeww`, `ps axe`: BSD-style options with `e` print every process's
    environment, lathe's credentials among them (with a dash, `-e` only means all processes)."""
    for part in (*analysis.parts, *analysis.nested):
        words = allow_form(part.words) or part.words
        if not words or os.path.basename(words[0]) != "ps":
            continue
        args = words[1:]
        if any(not a.startswith("-") and "e" in a for a in args) or any(
            "environ" in a for a in args
        ):
            return "`ps e` prints the environment of processes, lathe's credentials among them"
    return ""
