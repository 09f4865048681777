"""What a path word of a shell command really names once bash has expanded it.

The parser hands over words after quote removal; bash still applies brace expansion, tilde expansion
and pathname expansion (globs) to them, on arguments and on redirection targets alike. A permission
check that only normalises the literal word misses `cat .en*` (reads `.env`), `cat {/etc/passwd,x}`,
`cat ~+/.env` (`~+` is `$PWD`), `cat outlin*/passwd` (a glob through a symlink that leads outside) and
`echo x > .gi?/hooks/pre-commit`. Here every word becomes every path it can stand for (a superset:
quoted braces and globs are expanded too, which can only make a check stricter), and a word whose
value only the running shell knows (`~-` is `$OLDPWD`, `~+2` the directory stack) is reported so that
no check can approve it.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re

from app.permissions.paths import PROTECTED_DIRS, PROTECTED_FILES, candidates

_GLOB_CHARS = frozenset("*?[")
# A word bash may expand: braces, globs, `~+`/`~-`/`~N`, or a path through /proc/self.
_SPECIAL_RE = re.compile(r"[{*?\[]|^~[-+0-9]|^/proc/")
_MAX_EXPANSIONS = 64
_MAX_GLOB_MATCHES = 256
_SEQ_RE = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.-?\d+)?$")
# `/proc/self/cwd` is the shell's folder, not the deciding process's: resolving it here would name
# lathe's own working folder.
_PROC_CWD_RE = re.compile(r"^/proc/(?:self|thread-self)/cwd(?=/|$)")
# Tilde forms whose value only the running shell knows: `~-` ($OLDPWD) and the directory stack.
_DYNAMIC_TILDE_RE = re.compile(r"^~(?:-|[+-]?\d+)(?=/|$)")


class Unknowable(ValueError):
    """The word names a path only the running shell knows; the message says why."""


def _split_braces(body: str) -> list[str] | None:
    """Top-level comma pieces of a brace body, or None when it has no top-level comma."""
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(body[start:i])
            start = i + 1
    if not pieces:
        return None
    return [*pieces, body[start:]]


def _sequence(body: str) -> list[str] | None:
    m = _SEQ_RE.match(body)
    if m is None:
        return None
    a, b = m.group(1), m.group(2)
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        lo, hi = int(a), int(b)
        step = 1 if hi >= lo else -1
        if abs(hi - lo) >= _MAX_EXPANSIONS:
            raise Unknowable(f"the brace sequence {{{body}}} expands to too many words")
        return [str(n) for n in range(lo, hi + step, step)]
    if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
        step = 1 if ord(b) >= ord(a) else -1
        return [chr(n) for n in range(ord(a), ord(b) + step, step)]
    return None


def expand_braces(word: str) -> list[str]:
    """Bash brace expansion (`a{b,c}d`, `{1..3}`), leftmost first, bounded in size."""
    out: list[str] = []
    todo = [word]
    while todo:
        w = todo.pop(0)
        start = w.find("{")
        expanded = False
        while start != -1:
            depth = 0
            for end in range(start, len(w)):
                if w[end] == "{":
                    depth += 1
                elif w[end] == "}":
                    depth -= 1
                    if depth == 0:
                        break
            else:
                break  # unbalanced: bash leaves it alone
            body = w[start + 1 : end]
            pieces = _split_braces(body) or _sequence(body)
            if pieces is not None:
                todo.extend(w[:start] + p + w[end + 1 :] for p in pieces)
                expanded = True
                break
            start = w.find("{", start + 1)
        if not expanded:
            out.append(w)
        if len(out) + len(todo) > _MAX_EXPANSIONS:
            raise Unknowable(f"{word} expands to too many words")
    return out


def _tilde(word: str, cwd: str) -> str:
    if _DYNAMIC_TILDE_RE.match(word):
        raise Unknowable(f"{word} names a folder only the running shell knows")
    if word == "~+" or word.startswith("~+/"):
        return cwd + word[2:]
    return word


def has_glob(word: str) -> bool:
    return any(c in _GLOB_CHARS for c in word)


def expand_word(word: str, cwd: str, home: str) -> list[str]:
    """Every absolute path (links resolved too) `word` can name when bash runs in `cwd`.

    Raises Unknowable when the shell alone decides. Globs are matched against the file system now,
    dotfiles included; the pattern itself is kept too (bash uses it when nothing matches).
    """
    if not _SPECIAL_RE.search(word):
        return list(candidates(word, cwd, home))  # the common case: nothing for bash to expand
    out: list[str] = []
    for piece in expand_braces(word):
        piece = _tilde(piece, cwd)
        piece = _PROC_CWD_RE.sub(lambda _: cwd.rstrip("/") or "/", piece)
        texts = [piece]
        if has_glob(piece):
            absolute_pattern = piece if piece.startswith(("/", "~")) else os.path.join(cwd, piece)
            if absolute_pattern.startswith("~"):
                absolute_pattern = candidates(absolute_pattern, cwd, home)[0]
            matches = glob.glob(absolute_pattern, include_hidden=True)
            if len(matches) > _MAX_GLOB_MATCHES:
                raise Unknowable(f"{word} matches too many files to check")
            texts.extend(matches)
        for text in texts:
            for cand in candidates(text, cwd, home):
                if cand not in out:
                    out.append(cand)
    return out


def glob_may_be_protected(word: str) -> bool:
    """A glob component that could match a protected name (`.gi?`, `.claud*`), whether or not
    anything matches it at this moment (an earlier part of the command may create it)."""
    names = PROTECTED_DIRS | PROTECTED_FILES
    for piece in expand_braces(word):
        for comp in piece.split("/"):
            if has_glob(comp) and any(fnmatch.fnmatchcase(n, comp.lower()) for n in names):
                return True
    return False
