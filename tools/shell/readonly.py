"""The read-only command set: commands that only look, never change anything.

`is_read_only_command` answers Bash's `is_read_only` (and with it concurrency safety); the
permission system adds the other half, that every path argument lies inside the working folders.
"""

from __future__ import annotations

from tools.shell.commands import allow_form, base_name, code_reason, is_dangerous_var
from tools.shell.parse import HARMLESS_TARGETS, SimpleCommand, analyze

# Commands whose arguments are not paths (nothing to check against the working folders).
NO_PATH_ARGS = frozenset(
    {
        "echo",
        "printf",
        "pwd",
        "true",
        "false",
        "whoami",
        "id",
        "uname",
        "hostname",
        "date",
        "which",
        "type",
        "command",
        "basename",
        "dirname",
        "seq",
        "sleep",
        "nproc",
        "printenv",
        "env",
        "tty",
        "groups",
        "arch",
        "locale",
        "test",
        "[",
    }
)
_PLAIN = frozenset(
    {
        "ls",
        "cat",
        "head",
        "tail",
        "wc",
        "diff",
        "cmp",
        "stat",
        "du",
        "df",
        "file",
        "tree",
        "realpath",
        "readlink",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "nl",
        "od",
        "hexdump",
        "cut",
        "tr",
        "column",
        "sha256sum",
        "sha1sum",
        "md5sum",
        "cksum",
        "b2sum",
        "strings",
        "comm",
        "fmt",
        "fold",
        "rev",
        "tac",
        "paste",
        "expand",
        "unexpand",
        "look",
        "lsof",
        "ps",
        "free",
        "uptime",
        "find",
        "fd",
        "jq",
        "sort",
    }
    | NO_PATH_ARGS
)
# Options that turn a read-only command into one that writes or runs something.
_BAD_OPTS: dict[str, tuple[str, ...]] = {
    "find": (
        "-exec",
        "-execdir",
        "-ok",
        "-okdir",
        "-delete",
        "-fprint",
        "-fprint0",
        "-fprintf",
        "-fls",
    ),
    "fd": ("-x", "-X", "--exec", "--exec-batch"),
    # `--compress-program` runs a program; `-o` writes a file.
    "sort": ("-o", "--output", "--compress-program"),
    # `-R` (with -H) writes an `00Tree.html` into every folder.
    "tree": ("-o", "-R"),
    # `--hostname-bin` runs a program to learn the host name.
    "rg": ("--pre", "--pre-glob", "--hostname-bin"),
    # `-C` compiles a magic file and writes it next to the source.
    "file": ("-C", "--compile"),
    "date": ("-s", "--set"),
    "hostname": ("-F", "--file", "-b", "--boot"),
    "jq": ("--rawfile", "--slurpfile"),
    "env": ("-",),
    "printenv": (),
}
_GIT_READ_ONLY = frozenset(
    {
        "status",
        "diff",
        "log",
        "show",
        "blame",
        "rev-parse",
        "ls-files",
        "describe",
        "shortlog",
        "reflog",
        "grep",
        "ls-tree",
        "cat-file",
        "merge-base",
        "rev-list",
        "whatchanged",
    }
)
_GIT_BAD_OPTS = ("--output", "--ext-diff", "--textconv", "-o", "--open-files-in-pager", "-O")
# Long options that are themselves prefixes of a bad option (getopt would not read them as an
# abbreviation because they are complete options of their own).
_WHOLE_OPTIONS = frozenset({"--text"})
# Short options checked also when glued to other flags or to their value (`-fo`, `-ofile`).
_GLUED = ("-o", "-s", "-O", "-F", "-b", "-x", "-X", "-R", "-C")


def takes_path_args(name: str) -> bool:
    """A command from the read-only set whose arguments name files (`cat`, `ls`, `find`...)."""
    return name == "git" or (name in _PLAIN and name not in NO_PATH_ARGS)


def read_only_words(words: tuple[str, ...]) -> bool:
    """True when the (wrapper-stripped) words name a command from the read-only set."""
    if not words:
        return True
    name = base_name(words[0]) if words[0].startswith("/usr/bin/") else words[0]
    args = words[1:]
    if code_reason(words):
        return False
    if name == "git":
        if not args or args[0] not in _GIT_READ_ONLY:
            return False
        if args[0] == "reflog" and len(args) > 1 and args[1] in ("expire", "delete"):
            return False
        return not any(_opt_is(a, _GIT_BAD_OPTS) for a in args[1:])
    if name in ("hostname", "date") and any(
        not a.startswith("-") and not (name == "date" and a.startswith("+")) for a in args
    ):
        return False  # `hostname NAME` and `date MMDDhhmm` set, they do not read
    if name in ("env", "printenv"):
        return all(not _is_assignment(a) for a in args) and (name == "printenv" or not args)
    if name == "command":
        return len(args) >= 1 and args[0] in ("-v", "-V")
    if name not in _PLAIN:
        return False
    bad = _BAD_OPTS.get(name, ())
    return not any(_opt_is(a, bad) for a in args)


def _opt_is(arg: str, options: tuple[str, ...]) -> bool:
    key = arg.split("=", 1)[0]
    for opt in options:
        if arg == opt or arg.startswith(opt + "="):
            return True
        # getopt_long and git accept any unambiguous abbreviation: `--outp=f` is `--output=f`.
        if (
            opt.startswith("--")
            and key.startswith("--")
            and len(key) > 2
            and opt.startswith(key)
            and key not in _WHOLE_OPTIONS
        ):
            return True
        # Short options glued to their value or to other flags: `-ofile`, `-no`.
        glued = len(opt) == 2 and arg.startswith("-") and not arg.startswith("--")
        if glued and opt[1] in arg[1:] and opt in _GLUED:
            return True
    return False


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier()


def is_read_only_part(part: SimpleCommand, ignore_redirects: bool = False) -> bool:
    """A read-only command with no substitution and no redirect that writes a file.

    `ignore_redirects` judges the command alone (its redirects are then checked as writes)."""
    if part.has_substitution or part.name_is_dynamic or part.dynamic_assignment:
        return False
    if any(is_dangerous_var(name) for name, _ in part.assignments):
        return False
    words = allow_form(part.words)
    if words is None or not read_only_words(words):
        return False
    for r in () if ignore_redirects else part.redirects:
        if r.writes and (r.dynamic or r.target is None or r.target not in HARMLESS_TARGETS):
            if r.op == ">&" and r.target is not None and r.target.isdigit():
                continue
            return False
    return True


def is_read_only_command(command: str) -> bool:
    """True when every part of `command` only reads (paths are not checked here)."""
    analysis = analyze(command)
    if not analysis.analysable or analysis.has_substitution or analysis.functions:
        return False
    if not analysis.parts:
        return False
    return all(is_read_only_part(p) for p in analysis.parts)
