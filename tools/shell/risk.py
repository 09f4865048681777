"""Why a command, with its arguments, executes or writes more than its name says.

A rule `Bash(git diff *)` or the read-only set names a command; `git diff --output=f`, `sed
's/x/y/e'` or `printf -v 'a[$(id)]' x` make the same command write a file or run one. The data
(which options of which command do that) lives in optiondata.py; this module applies it.
"""

from __future__ import annotations

import itertools
import re

from tools.shell.commands import base_name
from tools.shell.getopt import unknown_long_option
from tools.shell.optiondata import (
    EXEC_OR_WRITE,
    GIT_BUILTINS,
    GIT_EXEC_OR_WRITE,
    GIT_SAFE_GLOBAL,
    GIT_SHORT_RISK,
    JQ_UNSAFE,
    LIST_FILE_OPTS,
    NAME_EVALUATORS,
    STDIN_LIST_READERS,
)

# Long options that are themselves prefixes of a bad option (getopt would not read them as an
# abbreviation because they are complete options of their own).
_WHOLE_OPTIONS = frozenset({"--text", "--exclude"})
_SUBSCRIPT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[")


def opt_is(arg: str, options: tuple[str, ...] | frozenset[str]) -> bool:
    """Is `arg` one of `options`, abbreviated (`--outp=f`) or glued (`-ofile`, `-no`)?"""
    if not arg.startswith("-") or arg == "-":
        return False
    key = arg.split("=", 1)[0]
    for opt in options:
        if arg == opt or arg.startswith(opt + "="):
            return True
        if (
            opt.startswith("--")
            and key.startswith("--")
            and len(key) > 2
            and opt.startswith(key)
            and key not in _WHOLE_OPTIONS
        ):
            return True
        if len(opt) == 2 and not arg.startswith("--") and opt[1] in arg[1:]:
            # `-o` glued: any flag cluster holding the letter (`-fo`, `-ofile`).
            return True
    return False


def option_risk(words: tuple[str, ...]) -> str:
    """Why an option or argument of this (wrapper-stripped) command runs or writes, or ""."""
    if not words:
        return ""
    name = base_name(words[0])
    args = words[1:]
    if name == "git":
        return git_risk(args)
    odd = unknown_long_option((name, *args))
    if odd:
        return f"`{name} {odd}` is no option {name} knows, or an ambiguous abbreviation"
    if name in NAME_EVALUATORS:
        why = _subscript_risk(name, args)
        if why:
            return why
    if name == "sed" and not sed_is_plain(args):
        return "`sed` with a program or option that can write files or run commands"
    if name == "jq" and any(tok in " ".join(args) for tok in JQ_UNSAFE):
        return "`jq` with a program that reads files or the environment"
    if name == "ps" and any(not a.startswith("-") and "e" in a for a in args):
        return "`ps e` prints the environment of processes"
    if name == "uniq" and len([a for a in args if not a.startswith("-") or a == "-"]) > 1:
        return "`uniq IN OUT` writes OUT"
    if name in ("sort", "wc", "du") and any(opt_is(a, ("--files0-from",)) for a in _options(args)):
        return f"`{name} --files0-from` reads file names nobody checked"
    bad = EXEC_OR_WRITE.get(name)
    if bad:
        hit = next((a for a in tar_options(name, args) if opt_is(a, bad)), None)
        if hit is not None:
            return f"`{name} {hit}` can run a program or write a file"
    return ""


def list_read_risk(words: tuple[str, ...]) -> str:
    """Why this command reads files whose names it takes from a file or its input (`tar -T
    list`, `sort --files0-from=-`, `zip -@ < list`), so that no check sees which, or ""."""
    if not words:
        return ""
    name = base_name(words[0])
    list_opts = LIST_FILE_OPTS.get(name, ())
    stdin_forms = STDIN_LIST_READERS.get(name)
    if not list_opts and stdin_forms is None:
        return ""  # the common case, kept cheap: the decision bench runs this for every part
    args = words[1:]
    opts = _options(args)
    if name in ("tar", "gtar", "bsdtar") and args and args[0][:1].isalpha():
        opts.append("-" + args[0])  # old-style bundled options: `tar cfT - list`
    hit = next((a for a in opts if opt_is(a, list_opts)), None)
    if hit is None and list_opts:
        glued = tuple(o for o in list_opts if o.endswith("@"))  # `7z a x.7z -i@list`
        hit = next((a for a in opts if glued and a.startswith(glued)), None)
    if hit is not None:
        return f"`{name} {hit}` reads files named in a list nobody checked"
    if stdin_forms is not None:
        hit = next((a for a in opts if opt_is(a, stdin_forms)), None)
        if hit is not None:
            return f"`{name} {hit}` reads the names of files from its input"
    return ""


def makes_symlink(words: tuple[str, ...]) -> bool:
    """`ln -s`, `cp -s`, `cp -rs`: the command creates a symbolic link. A later part of the same
    command may read or write through it, and no check before it runs can resolve it."""
    if not words:
        return False
    name = base_name(words[0])
    if name in ("ln", "gln"):
        return any(opt_is(a, ("-s", "--symbolic")) for a in _options(words[1:]))
    if name in ("cp", "gcp"):
        return any(opt_is(a, ("-s", "--symbolic-link")) for a in _options(words[1:]))
    return False


_EXTRACT_OPTS: dict[str, tuple[str, ...]] = {
    "tar": ("-x", "--extract", "--get"),
    "gtar": ("-x", "--extract", "--get"),
    "bsdtar": ("-x", "--extract"),
    "cpio": ("-i", "--extract", "-p", "--pass-through"),
    "pax": ("-r",),
}
_UNZIP_LISTS = ("-l", "-p", "-t", "-v", "-Z", "-z")


def extracts_archive(words: tuple[str, ...]) -> bool:
    """`tar xf a.tar`, `unzip a.zip`, `cpio -i`, `7z x`: the archive's members choose the paths
    written (`.git/hooks/x`, a hard link to a denied file), and no check sees them beforehand."""
    if not words:
        return False
    name = base_name(words[0])
    args = words[1:]
    if name in _EXTRACT_OPTS:
        return any(opt_is(a, _EXTRACT_OPTS[name]) for a in tar_options(name, args))
    if name == "unzip":
        return not any(opt_is(a, _UNZIP_LISTS) for a in _options(args))
    if name in ("7z", "7za", "7zr"):
        return bool(args) and args[0] in ("x", "e")
    if name == "ar":
        return bool(args) and "x" in args[0]
    return False


def tar_options(name: str, args: tuple[str, ...]) -> list[str]:
    """The options of `args`; tar's old-style first word (`tar cIf CMD x`) counts as a cluster."""
    opts = _options(args)
    if name in ("tar", "gtar", "bsdtar") and args and args[0][:1].isalpha():
        opts.append("-" + args[0])
    return opts


def _options(args: tuple[str, ...]) -> list[str]:
    out = []
    for a in args:
        if a == "--":
            break
        if a.startswith("-") and a != "-":
            out.append(a)
    return out


def _subscript_risk(name: str, args: tuple[str, ...]) -> str:
    """`test -v 'a[$(id)]'`, `printf -v 'a[...]'`, `declare 'a[...]=1'`: the subscript runs."""
    if name in ("test", "["):
        names = [b for a, b in itertools.pairwise(args) if a in ("-v", "-R")]
    elif name == "printf":
        names = [b for a, b in itertools.pairwise(args) if a == "-v"]
        names += [a[2:] for a in args if a.startswith("-v") and len(a) > 2]
    else:
        names = list(args)
    if any(_SUBSCRIPT_RE.search(n) or "$" in n or "`" in n for n in names):
        return f"`{name}` evaluates an array subscript, which can run commands"
    if name == "let" and args:
        # Every argument is an arithmetic expression, and a name in it is evaluated by its value:
        # `true 'a[$(id)]'; let _` runs id through `$_`.
        return "`let` evaluates variables' values as arithmetic, which can run commands"
    if name in ("declare", "typeset", "local", "export", "readonly") and any(
        a.startswith("-") and not a.startswith("--") and "i" in a for a in args
    ):
        # The integer attribute makes every later assignment arithmetic (`declare -i n; n=_`).
        return f"`{name} -i` makes assignments arithmetic, which can run commands"
    if name == "printf" and names:
        # `printf -v PATH ./bin; ls` runs ./bin/ls: setting a variable changes what runs next.
        return "`printf -v` sets a shell variable, which can change what later commands run"
    return ""


def git_risk(args: tuple[str, ...]) -> str:
    """Global options, aliases and subcommand options of git that run programs or write files."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] not in GIT_SAFE_GLOBAL:
            return f"`git {args[i]}` changes what git runs or where"
        i += 1
    if i >= len(args):
        return ""
    sub = args[i]
    if sub not in GIT_BUILTINS:
        return f"`git {sub}` is not a git command, so it may be an alias that runs anything"
    short = GIT_SHORT_RISK.get(sub, "")
    for a in _options(args[i + 1 :]):
        if a.startswith("--") and opt_is(a, GIT_EXEC_OR_WRITE):
            return f"`git {sub} {a}` can run a program or write a file"
        if not a.startswith("--") and any(c in a[1:] for c in short):
            return f"`git {sub} {a}` can run a program or write a file"
    return ""


# --- sed -----------------------------------------------------------------------------------------

_SED_ADDR = r"(?:\d+(?:~\d+)?|\$|/(?:[^/\\]|\\.)*/I?)"
_SED_CMD = re.compile(
    rf"\s*(?:{_SED_ADDR}(?:\s*,\s*(?:{_SED_ADDR}|[+~]\d+))?)?\s*!?\s*"
    r"(?:[pdqQnNgGhHxlPD=]|s(?P<d>[^\s\\\n;{}])(?:(?!(?P=d))[^\\]|\\.)*(?P=d)"
    r"(?:(?!(?P=d))[^\\]|\\.)*(?P=d)[gpiImM0-9]*|y/[^/]*/[^/]*/)?\s*"
)


def sed_is_plain(args: tuple[str, ...]) -> bool:
    """A sed call that only prints: no -i, no script file, and a program of plain commands
    (addresses, `p`, `d`, `q`, `n`, `=`, `s///` without the `e` and `w` flags, `y///`)."""
    scripts: list[str] = []
    operands: list[str] = []
    it = iter(args)
    for a in it:
        if a in ("-e", "--expression"):
            scripts.append(next(it, ""))
        elif a.startswith("--expression="):
            scripts.append(a.split("=", 1)[1])
        elif a in ("-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-u", "-z",
                   "--null-data", "--posix", "--debug", "--sandbox"):  # fmt: skip
            continue
        elif a.startswith("-") and a != "-":
            return False  # -i, -f script, -s, unknown: not plain
        else:
            operands.append(a)
    if not scripts:
        if not operands:
            return False
        scripts.append(operands[0])
    return all(_sed_program_plain(s) for s in scripts)


def _sed_program_plain(script: str) -> bool:
    for piece in re.split(r"[;\n]", script) if "s" not in script else _split_sed(script):
        if piece.strip() and not _SED_CMD.fullmatch(piece):
            return False
    return True


def _split_sed(script: str) -> list[str]:
    """Split on `;` and newlines outside `s` command bodies (a `;` may sit inside `s/a;b/c/`)."""
    pieces, pos = [], 0
    while pos <= len(script):
        m = _SED_CMD.match(script, pos)
        end = m.end() if m else pos
        if end < len(script) and script[end] not in ";\n":
            return [script]  # let the whole program fail the full match
        pieces.append(script[pos:end])
        pos = end + 1
    return pieces
