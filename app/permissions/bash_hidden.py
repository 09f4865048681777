"""Commands a deny rule must see although they are not a part's own words.

`env -S'rm f'` splits a string into a command; `awk 'BEGIN{system("rm f")}'` hands one to the
shell; `x=rm; $x f`, `/usr/bin/r? f` and a git alias name a command only the running shell or git
knows. Deny rules are matched against what can be resolved; what cannot is reported, so that in
bypassPermissions mode (where nothing else stops it) a command that may be a denied one is not run
while any Bash deny rule exists.
"""

from __future__ import annotations

import re

from tools.shell import ShellAnalysis, SimpleCommand, allow_form
from tools.shell.commands import base_name, strip_wrappers
from tools.shell.optiondata import GIT_BUILTINS, NAME_EVALUATORS
from tools.shell.risk import option_risk

_AWK = frozenset({"awk", "gawk", "mawk", "nawk", "busybox"})
_AWK_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def hidden_commands(words: tuple[str, ...]) -> list[str]:
    """Shell code this command hands to a shell (awk's system() and pipes, `env -S`)."""
    if not words:
        return []
    name = base_name(words[0])
    out: list[str] = []
    if name == "env":
        for i, w in enumerate(words[1:], start=1):
            if w in ("-S", "--split-string") and i + 1 < len(words):
                out.append(words[i + 1])
            elif w.startswith("--split-string="):
                out.append(w.split("=", 1)[1])
            elif w.startswith("-S") and len(w) > 2:
                out.append(w[2:])
    if name in _AWK:
        program = " ".join(w for w in words[1:] if not w.startswith("-"))
        if _awk_runs(program):
            out.extend(m.group(1).replace('\\"', '"') for m in _AWK_STRING.finditer(program))
    return out


def _awk_runs(program: str) -> bool:
    return "system" in program or "|" in program or "getline" in program


def unknowable(analysis: ShellAnalysis) -> str:
    """Why some command this would run cannot be known before it runs, or ""."""
    if not analysis.analysable:
        return analysis.error or "the command could not be analysed"
    for part in (*analysis.parts, *analysis.nested):
        why = _part_unknowable(part)
        if why:
            return f"{part.text.strip()[:80]}: {why}"
    return ""


def _part_unknowable(part: SimpleCommand) -> str:
    if part.name_is_dynamic:
        return "its command name is only known at run time"
    words = allow_form(part.words)
    if words is None:
        words = strip_wrappers(part.words) or part.words
    if not words:
        return ""
    name = base_name(words[0])
    if name in NAME_EVALUATORS and option_risk(words):
        return "it evaluates an array subscript, which can run any command"
    if name == "git":
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += 2 if words[i] in ("-C", "-c", "--git-dir", "--work-tree") else 1
        if i < len(words) and words[i] not in GIT_BUILTINS:
            return f"`git {words[i]}` may be an alias that runs any command"
    if name in _AWK:
        program = " ".join(w for w in words[1:] if not w.startswith("-"))
        if re.search(r"system\s*\(\s*[^\s\"]", program) or re.search(r"\|\s*[^\s\"&|]", program):
            return "its awk program runs a command built at run time"
        if any(w == "-f" or w.startswith("-f") for w in words[1:]):
            return "its awk program comes from a file"
    code_runner = name in ("eval", "source", ".", "sh", "bash", "zsh", "dash", "ksh")
    if code_runner and any(i in part.dynamic for i in range(1, len(part.words))):
        return "it runs shell code only known at run time"
    return ""
