"""How getopt reads options, so that a check sees what the program sees.

getopt_long accepts any unambiguous prefix of a long option (`env --s='rm f'` is
`--split-string`, `git fetch --upl=CMD` is `--upload-pack`), and short options cluster, the
first one that takes a value taking the rest of the word or the next word (`env -vS'rm f'`,
`env -iu ls rm f`, `git clone -qu CMD`). Matching a prefix of any length is fail-closed: a
checked option is found in every spelling the program itself accepts.
"""

from __future__ import annotations


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
