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
from tools.shell.commands import base_name, exported_danger, is_dangerous_var, strip_wrappers
from tools.shell.getopt import long_abbrev, option_values
from tools.shell.optiondata import (
    CMD_VALUE_OPTS,
    GIT_BUILTINS,
    GIT_SHORT_CMD,
    NAME_EVALUATORS,
    RUNNERS,
    TAR_VALUE_LETTERS,
)
from tools.shell.risk import opt_is, option_risk, sed_is_plain

_EDITORS = frozenset({"vim", "vi", "nvim", "ex", "emacs", "gdb", "lldb"})
_EDITOR_CODE_OPTS = frozenset({"-c", "--cmd", "-S", "-ex", "--ex", "-iex", "-x", "--eval", "-l",
                               "--load", "-o", "-s", "--batch", "--script"})  # fmt: skip
_OLD_STYLE_TAR = frozenset({"tar", "gtar"})
_AWK = frozenset({"awk", "gawk", "mawk", "nawk", "busybox"})
_AWK_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def hidden_commands(words: tuple[str, ...]) -> list[str]:
    """Shell code this command hands to a shell (awk's system() and pipes, `env -S`, the value of
    `tar --to-command`, `git rebase -x`, `su -c`...: optiondata.CMD_VALUE_OPTS)."""
    if not words:
        return []
    name = base_name(words[0])
    args = words[1:]
    if name in _OLD_STYLE_TAR and args and args[0][:1].isalpha():
        args = old_style_tar(args)
    # git's short options differ per subcommand (`cherry-pick -x` takes no value): only glued.
    out: list[str] = _option_values(args, CMD_VALUE_OPTS.get(name, ()), clusters=name != "git")
    if name == "git":
        rest = [w for w in words[1:] if not w.startswith("-")]
        for sub in (w for w in rest if w in GIT_SHORT_CMD):
            out += _option_values(words[words.index(sub) + 1 :], GIT_SHORT_CMD[sub])
        for a, b in (("submodule", "foreach"), ("bisect", "run")):
            if a in rest and b in rest[rest.index(a) :]:
                out.append(" ".join(rest[rest.index(b, rest.index(a)) + 1 :]))
    if name == "env":
        out += _option_values(words[1:], ("-S", "--split-string"))
    if name in _AWK:
        program = " ".join(w for w in words[1:] if not w.startswith("-"))
        if _awk_runs(program):
            out.extend(m.group(1).replace('\\"', '"') for m in _AWK_STRING.finditer(program))
    return out


def _option_values(
    args: tuple[str, ...], options: tuple[str, ...], clusters: bool = True
) -> list[str]:
    out = option_values(args, options, clusters)
    # `--checkpoint-action=exec=CMD`, `ssh -o ProxyCommand=CMD`
    return [v.split("=", 1)[1] if re.match(r"(exec|ProxyCommand|LocalCommand)=", v) else v
            for v in out]  # fmt: skip


def old_style_tar(args: tuple[str, ...]) -> tuple[str, ...]:
    """`tar cIf CMD out.tar x` as getopt-style words (`-c -I CMD -f out.tar x`): the letters of
    the first word are options, each one that takes a value taking the next argument in order."""
    out: list[str] = []
    rest = list(args[1:])
    for c in args[0]:
        if c in TAR_VALUE_LETTERS and rest:
            out += [f"-{c}", rest.pop(0)]
        else:
            out.append(f"-{c}")
    return (*out, *rest)


def _awk_runs(program: str) -> bool:
    return "system" in program or "|" in program or "getline" in program


def _after_exec(name: str, words: tuple[str, ...]) -> list[str]:
    """The command words xargs or find -exec runs (the first of them is what matters)."""
    if name == "xargs":
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += (
                2 if words[i] in ("-I", "-i", "-n", "-P", "-L", "-l", "-s", "-d", "-E", "-a") else 1
            )
        return list(words[i : i + 1])
    out: list[str] = []
    for i, w in enumerate(words):
        if w in ("-exec", "-execdir", "-ok", "-okdir", "-x", "-X", "--exec", "--exec-batch"):
            out.extend(words[i + 1 : i + 2])
    return out


def _in_place_stripped(args: tuple[str, ...]) -> tuple[str, ...]:
    """sed's arguments without `-i[SUFFIX]`/`--in-place[=SUFFIX]`/`-s`: editing in place writes
    the named files but runs nothing, so the program alone decides whether sed runs a command."""
    return tuple(
        a for a in args if not (a.startswith(("-i", "--in-place")) or a in ("-s", "--separate"))
    )


def unknowable(analysis: ShellAnalysis) -> str:
    """Why some command this would run cannot be known before it runs, or ""."""
    if not analysis.analysable:
        return analysis.error or "the command could not be analysed"
    for part in (*analysis.parts, *analysis.nested):
        why = _part_unknowable(part)
        if why:
            return f"{part.text.strip()[:80]}: {why}"
    return ""


# git options that start a program named by a config value, the environment or a built-in
# table, none of it on the command line (`git grep -O` opens its matches in `core.pager`,
# `-Orm` in rm with the matched files as arguments).
_GIT_PROGRAM_OPTS = ("--open-files-in-pager", "--tool", "--ext-diff", "--textconv", "--paginate",
                     "--gui", "--extcmd")  # fmt: skip
_GIT_PROGRAM_SHORT = {"grep": "O", "difftool": "tgx", "mergetool": "tg"}


def _git_runs_unseen(sub: str, args: tuple[str, ...]) -> str:
    """Why this git subcommand starts a program no deny rule sees, or ""."""
    if sub in ("difftool", "mergetool"):
        return f"`git {sub}` runs a diff or merge tool its config names"
    short = _GIT_PROGRAM_SHORT.get(sub, "")
    for a in args:
        if a == "--":
            break
        if a.startswith("--") and opt_is(a, _GIT_PROGRAM_OPTS):
            return f"`git {sub} {a}` starts a program no rule sees"
        if a.startswith("-") and not a.startswith("--") and any(c in a[1:] for c in short):
            return f"`git {sub} {a}` starts a program no rule sees"
    return ""


def _part_unknowable(part: SimpleCommand) -> str:
    if part.name_is_dynamic:
        return "its command name is only known at run time"
    bad_var = next((k for k, _ in part.assignments if is_dangerous_var(k)), None)
    if bad_var is not None:
        return f"it sets {bad_var}, which can make it run another program"
    words = allow_form(part.words)
    if words is None:
        words = strip_wrappers(part.words) or part.words
    if not words:
        return ""
    exported = exported_danger(part.words) or exported_danger(words)
    if exported:
        return f"it exports {exported}, which can make a later program run another program"
    name = base_name(words[0])
    if name in _EDITORS:
        if any(w.startswith("+") or w in _EDITOR_CODE_OPTS for w in words[1:]):
            return f"`{name}` is given editor commands, which can run any program"
    elif name in RUNNERS and name not in ("sudo", "doas", "time", "watch", "chroot"):
        return f"`{name}` runs a program its arguments name, in a form not resolved here"
    if name == "exec" and any(w.startswith("-") for w in words[1:2]):
        return "`exec` with options runs a program under another name"
    if name in ("xargs", "find", "fd") and any("{}" in w for w in _after_exec(name, words)):
        return f"`{name}` runs a command whose name comes from its input"
    if name == "sed" and not sed_is_plain(_in_place_stripped(words[1:])):
        return "its sed program can run the pattern space as a command"
    if name in NAME_EVALUATORS and option_risk(words):
        return "it evaluates an array subscript, which can run any command"
    if name == "git":
        if any(w == "-c" or w.startswith(("--config-env", "-c")) for w in words[1:3]):
            return "`git -c` can set a config that runs any command"
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += 2 if words[i] in ("-C", "-c", "--git-dir", "--work-tree") else 1
        if i < len(words) and words[i] not in GIT_BUILTINS:
            return f"`git {words[i]}` may be an alias that runs any command"
        if any(long_abbrev(w.split("=", 1)[0], "--template") for w in words[i + 1 :]):
            return "`git --template=DIR` installs hooks from DIR, which git then runs"
        why = _git_runs_unseen(words[i], words[i + 1 :]) if i < len(words) else ""
        if why:
            return why
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
