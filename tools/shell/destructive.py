"""Whether a command destroys data: the UI warns louder before approving these.

Unknowable commands (a command name made at run time, `eval`, `sh -c`, parse failures) count as
destructive: the declaration is about care, and care must fail closed. A substitution is not
unknowable when the analysis parsed the commands inside it: those are judged like the others, so
`echo $(date)` carries no warning and `ls $(rm -rf /)` does.

Removing files (`rm`, `rmdir`, `unlink`, `shred`) destroys data only when one of them is there:
`rm -f gone.txt`, or a glob that matches nothing, removes nothing (no warning); anything the
analysis cannot resolve (a variable, `~`, no folder given, a `cd` before it) counts as there.

Replacing a file's content destroys it only when the file is there: `echo hi > out.txt`, `cp a b`,
`mv a b` and `tee b` destroy data when the target exists in the folder the command runs in, and
create a file otherwise (no warning). Where that cannot be known (no folder given, a target made at
run time, a `cd` earlier in the command) the target counts as existing: fail closed.

Running a script (`bash gen.sh`, `sh x.sh`, `. env.sh`) runs the code in its file (tui-r5 F11): a
script that is not there runs nothing (the shell fails), and one that is there is judged by what
it holds, as if typed (nested scripts two levels deep at most). Anything else is unknowable and
counts as destructive: code given as words (`-c`), read from stdin, an option not known here, a
script run with other commands around it (`cat > gen.sh <<EOF … && bash gen.sh`: they may write
it first), a file that cannot be read or is too large to judge.
"""

from __future__ import annotations

import glob
import os

from tools.shell.commands import strip_wrappers
from tools.shell.parse import Redirect, SimpleCommand, analyze

_ALWAYS = frozenset({"dd", "mkfs", "truncate", "wipefs"})
# They run code given as words (or read from files): what that code does is not known here.
_RUNS_CODE = frozenset({"eval", "sh", "bash", "zsh", "dash", "ksh", "source", ".", "xargs"})
# Of those, the ones that run a script file named as their operand.
_RUNS_SCRIPT = frozenset({"sh", "bash", "zsh", "dash", "ksh", "source", "."})
# Shell options that change nothing about what the script does to files (-n does not even run it).
_SCRIPT_FLAGS = frozenset("euxvnlh")
# A script larger than this is not read to be judged: counts as destructive.
_SCRIPT_MAX_BYTES = 256 * 1024
_SCRIPT_MAX_DEPTH = 2
_GIT_FLAGS = {
    "reset": ("--hard",),
    "clean": ("-f", "-fd", "-fdx", "-df", "-xdf", "--force"),
    "push": ("--force", "-f", "--force-with-lease", "--mirror", "--delete"),
    "branch": ("-D", "--delete"),
    "checkout": ("--", "-f", "--force", "."),
    "restore": (),
    "stash": ("drop", "clear"),
}


# Commands that replace their target's content, and the options with which they do not.
_OVERWRITERS = {
    "cp": frozenset({"-n", "--no-clobber", "--update=none", "-b", "--backup"}),
    "mv": frozenset({"-n", "--no-clobber", "--update=none", "-b", "--backup"}),
    "tee": frozenset({"-a", "--append"}),
}
# Words the shell still expands (a glob, a variable): their file is only known at run time.
_EXPANDS = frozenset("$*?[`{~")
# What a glob cannot be matched for here: a variable, a substitution, `~`, braces.
_UNKNOWN = _EXPANDS - frozenset("*?[")
# They destroy the files they name, and nothing when none of them exists (`rm -f gone.txt`).
_REMOVERS = frozenset({"rm", "rmdir", "unlink", "shred"})


class _Place:
    """Where the command's relative paths are, or None when that is not known."""

    def __init__(self, cwd: str | None, depth: int = 0, alone: bool = False) -> None:
        self.cwd = cwd
        self.depth = depth  # how many scripts deep this command runs
        # The command is this one simple command: nothing else in it can write or replace the
        # script before it runs (`cp other.sh gen.sh; bash gen.sh`).
        self.alone = alone

    def exists(self, path: str) -> bool:
        """Whether `path` may name an existing file (True when unknowable)."""
        if self.cwd is None or not path or any(c in _EXPANDS for c in path):
            return True
        return os.path.lexists(os.path.join(self.cwd, path))

    def any_exists(self, path: str) -> bool:
        """Whether `path` names an existing file, a glob (`*.tmp`, `a?[0-9]`) included: one
        that matches nothing names none. True when unknowable (a variable, `~`, braces)."""
        if self.cwd is None or not path or any(c in _UNKNOWN for c in path):
            return True
        if not any(c in "*?[" for c in path):
            return os.path.lexists(os.path.join(self.cwd, path))
        try:
            return bool(glob.glob(path, root_dir=self.cwd))
        except (OSError, ValueError):
            return True

    def is_dir(self, path: str) -> bool:
        return self.cwd is not None and os.path.isdir(os.path.join(self.cwd, path))


def _overwrites(words: tuple[str, ...], place: _Place) -> bool:
    """`cp`/`mv` onto an existing file (or into a folder holding a same-named one), `tee` onto
    an existing file; never with an option that keeps the old content (`-n`, `-b`, `-a`)."""
    name = words[0].rsplit("/", 1)[-1]
    keeps = _OVERWRITERS[name]
    args: list[str] = []
    into: str | None = None  # cp/mv -t FOLDER
    rest = list(words[1:])
    while rest:
        word = rest.pop(0)
        if word == "--":
            args.extend(rest)
            break
        if not word.startswith("-") or word == "-":
            args.append(word)
        elif word in keeps or word.startswith("--backup="):
            return False
        elif name == "tee":
            continue
        elif word in ("-t", "--target-directory"):
            into = rest.pop(0) if rest else ""
        elif word.startswith("--target-directory="):
            into = word.split("=", 1)[1]
        elif not word.startswith("--") and ("n" in word or "b" in word):
            return False  # `-vn`, `-bi`: combined short options that keep the old file
    if name == "tee":
        return any(place.exists(a) for a in args)
    if into is None:
        if len(args) < 2:
            return False  # fails: nothing to copy or move
        if not place.is_dir(args[-1]):
            return place.exists(args[-1])
        into, args = args[-1], args[:-1]
    return any(place.exists(os.path.join(into, os.path.basename(a.rstrip("/")))) for a in args)


def _removes(words: tuple[str, ...], place: _Place) -> bool:
    """`rm`, `rmdir`, `unlink`, `shred` of something that exists (or may: unknowable)."""
    operands: list[str] = []
    rest = list(words[1:])
    while rest:
        word = rest.pop(0)
        if word == "--":
            operands.extend(rest)
            break
        if word.startswith("-") and word != "-":
            continue  # an option (shred's `-n 3` takes a number: a word that names no file)
        operands.append(word)
    # No operand here: a wrapper gives them (`xargs rm < list`), unknown here.
    return not operands or any(place.any_exists(w) for w in operands)


def _script_destroys(words: tuple[str, ...], place: _Place) -> bool:
    """`bash gen.sh ARGS`: what the script file holds, judged as a command; a missing script
    runs nothing. Everything not known here counts as destructive (fail closed)."""
    name = words[0].rsplit("/", 1)[-1]
    rest = list(words[1:])
    while rest and rest[0].startswith("-") and rest[0] != "-" and name not in ("source", "."):
        flag = rest.pop(0)
        if flag == "--":
            break
        if not set(flag[1:]) <= _SCRIPT_FLAGS:
            return True  # `-c CODE`, `-s` (stdin), `-o opt`, `--rcfile`: not judged here
    if not rest or rest[0] == "-":
        return True  # the code comes from stdin
    script = rest[0]
    if place.cwd is None or not place.alone or any(c in _EXPANDS for c in script):
        return True  # a script only known at run time, or one this command may write first
    path = os.path.join(place.cwd, script)
    if not os.path.lexists(path):
        return False  # "No such file or directory": nothing runs
    if place.depth >= _SCRIPT_MAX_DEPTH:
        return True
    try:
        if os.path.getsize(path) > _SCRIPT_MAX_BYTES:
            return True
        with open(path, encoding="utf-8") as f:
            code = f.read()
    except (OSError, UnicodeDecodeError):
        return True
    return _judge(code, place.cwd, place.depth + 1)


def _redirect_destroys(r: Redirect, place: _Place) -> bool:
    if not (r.writes and r.op in (">", ">|", "&>")) or r.target in (None, "/dev/null"):
        return False
    return r.dynamic or place.exists(r.target or "")


def _part_destroys(part: SimpleCommand, place: _Place) -> bool:
    if part.name_is_dynamic:
        return True  # `{rm,-rf,x}`, `$cmd x`: the command is only known at run time
    words = strip_wrappers(part.words)
    if words is None:
        return True  # a wrapper we do not understand: assume the worst
    if not words:
        return False
    name = words[0].rsplit("/", 1)[-1]
    if name in _REMOVERS:
        return _removes(words, place) or any(_redirect_destroys(r, place) for r in part.redirects)
    if name in _RUNS_SCRIPT:
        return _script_destroys(words, place) or any(
            _redirect_destroys(r, place) for r in part.redirects
        )
    if name in _ALWAYS or name in _RUNS_CODE or name.startswith("mkfs."):
        return True
    if name == "find" and ("-delete" in words or "-exec" in words):
        return True
    if name == "git" and len(words) > 1:
        sub = words[1]
        if sub in _GIT_FLAGS:
            flags = _GIT_FLAGS[sub]
            return not flags or any(w in flags for w in words[2:])
    if name in _OVERWRITERS and _overwrites(words, place):
        return True
    # A write redirect over an existing file (not /dev/null) replaces its content.
    return any(_redirect_destroys(r, place) for r in part.redirects)


def is_destructive_command(command: str, cwd: str | None = None) -> bool:
    """Whether `command`, run in `cwd`, destroys data. Without `cwd` every file a command would
    replace counts as existing."""
    return _judge(command, cwd, 0)


def _judge(command: str, cwd: str | None, depth: int) -> bool:
    analysis = analyze(command)
    if not analysis.analysable:
        return True
    parts = (*analysis.parts, *analysis.nested)
    # A `cd` (or pushd/popd) moves where later relative paths point: not known here.
    moves = any(
        (strip_wrappers(p.words) or p.words or ("",))[0] in ("cd", "pushd", "popd") for p in parts
    )
    place = _Place(None if moves else cwd, depth, alone=len(parts) == 1)
    return any(_part_destroys(p, place) for p in parts)
