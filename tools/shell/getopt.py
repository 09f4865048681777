"""How getopt reads options, so that a check sees what the program sees.

getopt_long accepts any unambiguous prefix of a long option (`env --s='rm f'` is
`--split-string`, `git fetch --upl=CMD` is `--upload-pack`), and short options cluster, the
first one that takes a value taking the rest of the word or the next word (`env -vS'rm f'`,
`env -iu ls rm f`, `git clone -qu CMD`). Matching a prefix of any length is fail-closed: a
checked option is found in every spelling the program itself accepts.
"""

from __future__ import annotations

import functools
import os

from tools.shell.longoptdata import LONG_OPTIONS


def long_abbrev(key: str, option: str) -> bool:
    """Is `key` (an argument before any `=`) `option` or a prefix getopt_long may read as it?"""
    return (
        key.startswith("--") and len(key) > 2 and option.startswith("--") and option.startswith(key)
    )


def option_values(
    args: tuple[str, ...], options: tuple[str, ...], clusters: bool = True
) -> list[str]:
    """The values `options` are given in `args`: `--opt=V`, `--op V` (an abbreviation),
    `-oV`, `-o V` and, with `clusters`, `-xo V` / `-xoV` (a flag cluster reaching the letter)."""
    longs = tuple(o for o in options if o.startswith("--"))
    shorts = "".join(o[1] for o in options if len(o) == 2 and o[0] == "-" and o[1] != "-")
    out: list[str] = []
    for i, a in enumerate(args):
        if a == "--":
            break
        nxt = args[i + 1] if i + 1 < len(args) else None
        if a.startswith("--"):
            key, eq, value = a.partition("=")
            if any(long_abbrev(key, o) for o in longs):
                if eq:
                    out.append(value)
                elif nxt is not None:
                    out.append(nxt)
            continue
        if not a.startswith("-") or len(a) < 2 or not shorts:
            continue
        letters = a[1:] if clusters else a[1:2]
        for k, c in enumerate(letters):
            if c in shorts:
                rest = a[k + 2 :]
                if rest:
                    out.append(rest)
                elif nxt is not None:
                    out.append(nxt)
                break
    return out


def skip_options(words: tuple[str, ...], value_opts: frozenset[str]) -> tuple[str, ...]:
    """`words` after the leading options, an option of `value_opts` taking its value (in every
    spelling getopt accepts: `--un VAR`, `-iu VAR`, `-uVAR`)."""
    longs = tuple(o for o in value_opts if o.startswith("--"))
    shorts = "".join(o[1] for o in value_opts if len(o) == 2 and o[1] != "-")
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        a = words[i]
        if a == "--":
            return words[i + 1 :]
        takes = False
        if a.startswith("--"):
            key = a.split("=", 1)[0]
            takes = "=" not in a and (key in value_opts or any(long_abbrev(key, o) for o in longs))
        else:
            for k, c in enumerate(a[1:]):
                if c in shorts:
                    takes = k + 2 == len(a)  # the value is the next word only if c ends the word
                    break
        i += 2 if takes else 1
    return words[i:]


# Option values that getopt's programs themselves accept abbreviated (gnulib's argmatch:
# `grep --directories=rec` is `recurse`), so a check sees the whole value.
_VALUE_WORDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("grep", "--directories"): ("read", "recurse", "skip"),
    ("grep", "--devices"): ("read", "skip"),
    ("grep", "--binary-files"): ("binary", "text", "without-match"),
}
_VALUE_ALIASES = {"egrep": "grep", "fgrep": "grep", "rgrep": "grep"}


@functools.lru_cache(maxsize=4096)
def full_long_option(name: str, key: str) -> str | None:
    """The long option of `name` that `key` (`--recur`) spells, or None when it is none of
    them or ambiguous: getopt_long takes an exact name first, then a unique prefix."""
    known = LONG_OPTIONS.get(name)
    if known is None or key in known:
        return key if known is not None else None
    hits = [o for o in known if o.startswith(key)]
    return hits[0] if len(hits) == 1 else None


def _full_value(name: str, option: str, value: str) -> str:
    words = _VALUE_WORDS.get((_VALUE_ALIASES.get(name, name), option))
    if not words or not value:
        return value
    hits = [w for w in words if w.startswith(value)]
    return hits[0] if len(hits) == 1 else value


def expand_long_options(words: tuple[str, ...]) -> tuple[str, ...]:
    """See `_expand_long_options`; the common case (no long option) returns at once."""
    if not any(w[:2] == "--" for w in words[1:]):
        return words
    return _expand_long_options(words)


@functools.lru_cache(maxsize=2048)
def _expand_long_options(words: tuple[str, ...]) -> tuple[str, ...]:
    """`words` with every long option of a command whose options are known (longoptdata.py)
    written out in full (`grep --recur --dir=rec` -> `grep --recursive --directories=recurse`),
    so that every check matching options sees what the program sees. An unknown or ambiguous
    option is left as it is; `unknown_long_option` reports it."""
    if not words:
        return words
    name = os.path.basename(words[0])
    if name not in LONG_OPTIONS:
        return words
    out = [words[0]]
    pending = ""  # a long option whose value is the next word (`--dir rec`)
    for i in range(1, len(words)):
        w = words[i]
        if w == "--":
            out.extend(words[i:])
            break
        if pending:
            out.append(_full_value(name, pending, w))
            pending = ""
            continue
        if not w.startswith("--") or len(w) == 2:
            out.append(w)
            continue
        key, eq, value = w.partition("=")
        full = full_long_option(name, key) or key
        if eq:
            out.append(f"{full}={_full_value(name, full, value)}")
        else:
            out.append(full)
            pending = full if (_VALUE_ALIASES.get(name, name), full) in _VALUE_WORDS else ""
    return tuple(out)


def unknown_long_option(words: tuple[str, ...]) -> str:
    """The first long option of `words` its (known) command has no unique reading of, or ""."""
    if not any(w[:2] == "--" for w in words[1:]):
        return ""
    name = os.path.basename(words[0])
    if name not in LONG_OPTIONS:
        return ""
    for w in words[1:]:
        if w == "--":
            break
        if (
            w.startswith("--")
            and len(w) > 2
            and full_long_option(name, w.partition("=")[0]) is None
        ):
            return w
    return ""
