"""Globs bash expands outside any simple command's words: the words of `for NAME in WORDS` and a
glob assigned to a variable (`x=~/.ssh/*; echo $x` lists ~/.ssh when `$x` is expanded unquoted).
They list the folders they match as `echo WORDS` would, so they are checked as its words are."""

from __future__ import annotations

from app.permissions.bash_paths import _outside
from app.permissions.context import PermissionContext
from app.permissions.messages import part_reason
from app.permissions.shellpaths import has_glob
from tools.shell import ShellAnalysis, SimpleCommand


def later_globs(
    analysis: ShellAnalysis,
    cwds: list[str],
    cwd_known: bool,
    dirs: tuple[str, ...],
    pc: PermissionContext,
) -> tuple[str, str] | None:
    """(the words, why they list names outside the working folders), or None."""
    words = [w for w in analysis.loop_words if has_glob(w)]
    for part in (*analysis.parts, *analysis.nested):
        words += [value for _name, value in part.assignments if has_glob(value)]
    if not words:
        return None
    text = " ".join(words)
    listing = SimpleCommand(text=text, words=("echo", *words))
    why = _outside(listing.words, listing, cwds, cwd_known, dirs, pc)
    return (text, part_reason(text, f"expands a glob that {why}")) if why else None
