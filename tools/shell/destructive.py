"""Whether a command destroys data: the UI warns louder before approving these.

Unknowable commands (a command name made at run time, `eval`, `sh -c`, parse failures) count as
destructive: the declaration is about care, and care must fail closed. A substitution is not
unknowable when the analysis parsed the commands inside it: those are judged like the others, so
`echo $(date)` carries no warning and `ls $(rm -rf /)` does.
"""

from __future__ import annotations

from tools.shell.commands import strip_wrappers
from tools.shell.parse import SimpleCommand, analyze

_ALWAYS = frozenset({"rm", "rmdir", "shred", "dd", "mkfs", "truncate", "wipefs", "unlink"})
# They run code given as words (or read from files): what that code does is not known here.
_RUNS_CODE = frozenset({"eval", "sh", "bash", "zsh", "dash", "ksh", "source", ".", "xargs"})
_GIT_FLAGS = {
    "reset": ("--hard",),
    "clean": ("-f", "-fd", "-fdx", "-df", "-xdf", "--force"),
    "push": ("--force", "-f", "--force-with-lease", "--mirror", "--delete"),
    "branch": ("-D", "--delete"),
    "checkout": ("--", "-f", "--force", "."),
    "restore": (),
    "stash": ("drop", "clear"),
}


def _part_destroys(part: SimpleCommand) -> bool:
    if part.name_is_dynamic:
        return True  # `{rm,-rf,x}`, `$cmd x`: the command is only known at run time
    words = strip_wrappers(part.words)
    if words is None:
        return True  # a wrapper we do not understand: assume the worst
    if not words:
        return False
    name = words[0].rsplit("/", 1)[-1]
    if name in _ALWAYS or name in _RUNS_CODE or name.startswith("mkfs."):
        return True
    if name == "find" and ("-delete" in words or "-exec" in words):
        return True
    if name == "git" and len(words) > 1:
        sub = words[1]
        if sub in _GIT_FLAGS:
            flags = _GIT_FLAGS[sub]
            return not flags or any(w in flags for w in words[2:])
    # A write redirect over a file (not /dev/null) replaces its content.
    return any(
        r.writes and r.op in (">", ">|", "&>") and r.target not in (None, "/dev/null")
        for r in part.redirects
    )


def is_destructive_command(command: str) -> bool:
    analysis = analyze(command)
    if not analysis.analysable:
        return True
    return any(_part_destroys(p) for p in (*analysis.parts, *analysis.nested))
