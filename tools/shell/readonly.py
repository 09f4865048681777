"""The read-only command set: commands that only look, never change anything.

`is_read_only_command` answers Bash's `is_read_only` (and with it concurrency safety); the
permission system adds the other half, that every path argument lies inside the working folders.
"""

from __future__ import annotations

from tools.shell.commands import allow_form, base_name, code_reason
from tools.shell.optiondata import GIT_LIST_ARGS, GIT_LIST_FORMS, GIT_READ_ONLY, GIT_SAFE_GLOBAL
from tools.shell.parse import HARMLESS_TARGETS, ShellAnalysis, SimpleCommand, analyze
from tools.shell.risk import option_risk, sed_is_plain

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
        "which",
        "type",
        "command",
        "basename",
        "dirname",
        "seq",
        "sleep",
        "nproc",
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
        "uniq",
        "sed",
        "date",
        "awk",
    }
    | NO_PATH_ARGS
)


def takes_path_args(name: str) -> bool:
    """A command from the read-only set whose arguments name files (`cat`, `ls`, `find`...)."""
    return name == "git" or (name in _PLAIN and name not in NO_PATH_ARGS)


def read_only_words(words: tuple[str, ...]) -> bool:
    """True when the (wrapper-stripped) words name a command from the read-only set, used in a
    form that only reads (no option that runs a program or writes a file, see optiondata.py)."""
    if not words:
        return True
    name = base_name(words[0]) if words[0].startswith("/usr/bin/") else words[0]
    args = words[1:]
    if code_reason(words) or option_risk((name, *args)):
        return False
    if name == "git":
        return _git_read_only(args)
    if name == "hostname" and any(not a.startswith("-") for a in args):
        return False  # `hostname NAME` sets the name
    if name == "date" and any(not a.startswith(("-", "+")) for a in args):
        return False  # `date MMDDhhmm` sets the clock
    if name == "command":
        return len(args) >= 1 and args[0] in ("-v", "-V")
    if name == "printenv":
        return bool(args) and all(a in SAFE_VARS for a in args)
    if name == "sed":
        return sed_is_plain(args)
    return name in _PLAIN


def _git_read_only(args: tuple[str, ...]) -> bool:
    i = 0
    while i < len(args) and args[i] in GIT_SAFE_GLOBAL:
        i += 1
    if i >= len(args) or args[i] not in GIT_READ_ONLY:
        return False
    sub, rest = args[i], args[i + 1 :]
    if sub == "reflog" and rest and rest[0] in ("expire", "delete", "drop"):
        return False
    if sub in GIT_LIST_FORMS:
        return _git_list_form(sub, rest)
    if sub == "stash":
        return bool(rest) and rest[0] in GIT_LIST_ARGS["stash"]
    return True


_GIT_VALUE_OPTS = frozenset(
    {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"}
)


def _git_list_form(sub: str, rest: tuple[str, ...]) -> bool:
    """`git branch`, `git tag -l`, `git remote -v`: listing, not creating or deleting."""
    allowed = GIT_LIST_FORMS[sub]
    listing = sub == "branch" and any(a in ("--list", "-l") for a in rest)
    listing = listing or (sub == "tag" and any(a in ("--list", "-l", "-n") for a in rest))
    operands: list[str] = []
    i = 0
    while i < len(rest):
        a = rest[i]
        key = a.split("=", 1)[0]
        if a.startswith("-"):
            if key not in allowed:
                return False
            if key in _GIT_VALUE_OPTS and "=" not in a:
                i += 1
        else:
            operands.append(a)
        i += 1
    if sub == "remote":
        return not operands or (len(operands) == 2 and operands[0] == "get-url")
    return not operands or listing


SAFE_VARS = frozenset(
    {
        "HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR", "HOSTNAME",
        "UID", "EUID", "PPID", "RANDOM", "LINENO", "SECONDS", "BASH_VERSION", "OSTYPE", "HOSTTYPE",
        "MACHTYPE", "PATH", "COLUMNS", "LINES", "CI", "VIRTUAL_ENV", "PYTHONPATH", "NODE_ENV",
        "LC_ALL", "LC_CTYPE", "EDITOR", "PAGER", "SHLVL", "BASHPID", "GROUPS", "IFS", "OPTIND",
    }
)  # fmt: skip
# Assignments a read-only command may carry (`LC_ALL=C sort`): they change no program or path.
SAFE_ASSIGNMENTS = frozenset({"LANG", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES",
                              "LC_NUMERIC", "LC_TIME", "TZ", "NO_COLOR", "FORCE_COLOR",
                              "COLUMNS", "CLICOLOR"})  # fmt: skip


def secret_names(analysis: ShellAnalysis) -> list[str]:
    """Variables the command expands that may hold secrets (`$ANTHROPIC_API_KEY`): any name not
    known to be harmless and not set by the command itself (`for f in ...; do cat $f`)."""
    return sorted(n for n in analysis.names if n not in SAFE_VARS and n not in analysis.assigned)


# Names whose value inside `$((...))` is always a number bash itself keeps: nothing a command can
# put there is evaluated. (RANDOM, OPTIND, HISTCMD and SRANDOM evaluate what is assigned to them,
# which is judged where it is assigned.)
ARITH_SAFE_NAMES = frozenset({"RANDOM", "SRANDOM", "SECONDS", "EPOCHSECONDS", "LINENO", "BASHPID",
                              "PPID", "UID", "EUID", "HISTCMD", "OPTIND"})  # fmt: skip


def arith_runs_code(analysis: ShellAnalysis) -> bool:
    """A name read inside `$((...))` whose value may be a string: bash evaluates the value as an
    expression, and `a[$(cmd)]` in it runs cmd. Not only names the command assigns
    (`x='a[$(id)]'; echo $((x))`) but also those bash or a builtin sets without an assignment
    the analysis sees (`true 'a[$(id)]'; echo $((_))`, `read x`, `printf -v x`, `mapfile`), so
    every name counts except the few bash keeps numeric."""
    return any(n in analysis.assigned or n not in ARITH_SAFE_NAMES for n in analysis.arith_names)


def is_read_only_part(part: SimpleCommand, ignore_redirects: bool = False) -> bool:
    """A read-only command with no substitution and no redirect that writes a file.

    `ignore_redirects` judges the command alone (its redirects are then checked as writes)."""
    if part.has_substitution or part.name_is_dynamic or part.dynamic_assignment:
        return False
    if any(name not in SAFE_ASSIGNMENTS for name, _ in part.assignments):
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
    if secret_names(analysis) or arith_runs_code(analysis):
        return False
    if not analysis.parts:
        return False
    return all(is_read_only_part(p) for p in analysis.parts)
