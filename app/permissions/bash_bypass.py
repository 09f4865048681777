"""What bypassPermissions must not run while deny rules exist, because no check can see it.

bypassPermissions answers every question with yes, so the deny rules are the only thing left
standing. A command the analysis cannot check against them is refused outright there (the other
modes ask about the same commands already):
- with a Read deny rule: a part whose path arguments or redirect sources are only known at run
  time (`cat $(pwd)/.env`, `x=.env; cat $x`), and a part that prints file content under other
  names (`git grep --no-index`, `dd if=`, `tar cf - .`, `python3 -c 'open(...)'`);
- with a Bash deny rule: a part that runs code whose content is not on the command line (a shell
  given a script, stdin or a heredoc, `source`, an interpreter, `make`, `npm run`, `pytest`...),
  and any git call after a part that may change what git runs (`git config core.fsmonitor ...`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator

from app.permissions.bash_git import git_reveal_risk, git_subcommand
from app.permissions.bash_paths import _recursive_deny, git_pathspec_deny
from app.permissions.bash_proven import is_version_query
from app.permissions.context import PermissionContext
from app.permissions.pathcheck import deny_below, deny_for
from app.permissions.shellpaths import has_glob
from tools.shell import ShellAnalysis, SimpleCommand, allow_form, code_reason, strip_wrappers
from tools.shell.commands import (
    SHELLS,
    base_name,
    exported_danger,
    interpreter_family,
    is_dangerous_var,
)
from tools.shell.readonly import NO_PATH_ARGS, arith_runs_code
from tools.shell.risk import list_read_risk

_INTERPRETERS = frozenset(
    {"python", "perl", "ruby", "php", "node", "lua", "Rscript", "julia", "tclsh", "wish",
     "expect", "osascript", "jshell", "groovy", "scala", "kotlin", "elixir", "erl", "escript",
     "guile", "racket", "sbcl", "clisp", "ocaml", "swift", "pwsh", "powershell", "qjs", "jjs"}
)  # fmt: skip

Expand = Callable[[str, str, str], tuple[str, ...]]

# Programs that run code they read from files of the project (a Makefile, package.json scripts,
# conftest.py, build.rs): what they run is not on the command line.
_RUNNERS = frozenset(
    {"make", "gmake", "bmake", "just", "rake", "ninja", "npx", "bunx", "pnpx", "pytest",
     "py.test", "tox", "nox", "gradle", "gradlew", "mvn", "ant", "sbt", "deno", "tsx",
     "ts-node", "invoke", "doit", "scons", "meson", "task", "bazel", "buck"}
)  # fmt: skip
# Package managers whose subcommands run project scripts (lifecycle hooks included).
_SCRIPTED = {
    "npm": frozenset({"run", "run-script", "rum", "urn", "exec", "x", "start", "test", "t",
                      "tst", "restart", "stop", "install", "i", "ci", "add", "rebuild", "pack",
                      "publish", "install-test", "it"}),
    "yarn": frozenset({"run", "exec", "start", "test", "install", "add", "dlx", ""}),
    "pnpm": frozenset({"run", "exec", "start", "test", "install", "i", "add", "dlx", "x"}),
    "bun": frozenset({"run", "x", "test", "install", "i", "add", "start"}),
    "cargo": frozenset({"run", "build", "test", "bench", "check", "clippy", "install", "b",
                        "r", "t", "c", "doc"}),
    "go": frozenset({"run", "test", "generate", "build", "install", "vet"}),
    "uv": frozenset({"run", "tool", "build"}),
    "uvx": frozenset({""}),
    "poetry": frozenset({"run", "install", "build"}),
    "pipenv": frozenset({"run", "install"}),
    "hatch": frozenset({"run", "test", "build", "shell"}),
    "pdm": frozenset({"run", "install", "build"}),
    "bundle": frozenset({"exec", "install"}),
    "composer": frozenset({"run", "run-script", "install", "exec"}),
    "dotnet": frozenset({"run", "test", "build"}),
    "pip": frozenset({"install"}),
    "pip3": frozenset({"install"}),
}  # fmt: skip
_ARCHIVERS = frozenset(
    {"tar", "zip", "7z", "7za", "cpio", "pax", "rsync", "scp", "cp", "ar", "jar", "gtar",
     "bsdtar", "rar", "zstd", "du"}
)  # fmt: skip
# Subcommands that write a repository's config or make a new repository (with its own config).
_GIT_STATE = frozenset({"init", "clone", "submodule", "worktree", "remote"})
_GIT_CONFIG_READS = ("--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin",
                     "--show-scope", "--get-urlmatch", "--get-color", "--get-colorbool")  # fmt: skip


def _words(part: SimpleCommand) -> tuple[str, ...]:
    form = allow_form(part.words)
    if form is None:
        form = strip_wrappers(part.words) or part.words
    return form


def runs_unseen_code(words: tuple[str, ...]) -> str:
    """Why this command runs code that is not on its command line, or ""."""
    if not words:
        return ""
    name = base_name(words[0])
    if name == "env":
        # `env A=1 cmd`: the inner command is a reading the deny rules and the allowlist see
        # (bash_proven); only what env itself sets can change what runs (`env PATH=./bin ls`).
        bad = next((w for w in words[1:] if _env_sets_danger(w)), None)
        return f"`env {bad}` changes what runs" if bad else ""
    why = code_reason(words)
    if why:
        return why
    if name in SHELLS:
        return f"`{name}` runs a script whose content is not checked"
    if interpreter_family(name) in _INTERPRETERS:
        return f"`{name}` runs a program whose content is not checked"
    if name in _RUNNERS:
        return f"`{name}` runs code from the project's files"
    subs = _SCRIPTED.get(name)
    if subs is not None:
        sub = next((w for w in words[1:] if not w.startswith("-")), "")
        if sub in subs or "" in subs:
            return f"`{name} {sub}`".rstrip("` ") + "` runs code from the project's files"
    return ""


def _env_sets_danger(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier() and is_dangerous_var(name)


def changes_git(words: tuple[str, ...], part: SimpleCommand) -> str:
    """Why this part may change what a later git call runs (config, hooks, the repository), or ""."""
    if not words:
        return ""
    name = base_name(words[0])
    if name in ("cd", "pushd", "popd"):
        return ""  # the folder git runs in is checked where git runs (git_place_risk)
    if name == "git":
        sub, args = git_subcommand(words)
        if sub == "config":
            if any(a.startswith(_GIT_CONFIG_READS) for a in args):
                return ""
            values = [a for a in args if not a.startswith("-")]
            if len(values) <= 1 and "--unset" not in args:
                return ""  # `git config user.name` reads one value
            return "`git config` may set a value that makes git run a program"
        if sub in _GIT_STATE:
            return f"`git {sub}` changes the repository a later git call reads"
        return ""
    for r in part.redirects:
        if r.writes and (r.dynamic or ".git" in (r.target or "")):
            return "writes into a .git folder"
    if any(".git" in w for w in words[1:]) and not _is_reader(name):
        return "may change a .git folder"
    return ""


def _is_reader(name: str) -> bool:
    return name in ("cat", "ls", "head", "tail", "grep", "rg", "find", "stat", "wc", "file")


def git_tainted(analysis: ShellAnalysis) -> str:
    """Why a git part of this command cannot be proven safe: an earlier part may change what it
    runs (the repository check looks at the config as it stands before the command), or ""."""
    why = ""
    for part in (*analysis.parts, *analysis.nested):
        words = _words(part)
        if why and words and base_name(words[0]) == "git":
            return why
        why = why or changes_git(words, part)
    return ""


def _parts(analysis: ShellAnalysis) -> Iterator[SimpleCommand]:
    yield from analysis.parts
    yield from analysis.nested


# Builtins that give code or a program another name, or run code under another name: after
# them, the word a deny rule sees is not the program that runs (`alias x=rm; x f`,
# `hash -p /bin/rm zz; zz f`, `mapfile -C 'rm f' -c 1`, `trap 'rm f' EXIT`).
_RENAMERS = frozenset({"alias", "hash", "enable", "trap", "bind", "complete", "compgen", "shopt"})
_CALLBACKS = frozenset({"mapfile", "readarray"})
_SYSTEM_BIN = ("/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/", "/usr/local/bin/")


def renamed_command(words: tuple[str, ...]) -> str:
    """Why the program this part runs may not be the one its command word names, or ""."""
    if not words:
        return ""
    word = words[0]
    name = base_name(word)
    if name in _RENAMERS:
        return f"`{name}` can make another name run a program"
    if name in _CALLBACKS and any(w.startswith("-C") for w in words[1:]):
        return f"`{name} -C` runs a callback"
    if "/" in word:
        # `./zz` may be a copy of, or a link to, any program (made in this very command).
        if not word.startswith(_SYSTEM_BIN) or os.path.basename(os.path.realpath(word)) != name:
            return f"`{word}` may be any program under another name"
        return ""
    if shutil.which(name) is None and name not in _BUILTIN_WORDS:
        return f"`{name}` is no program on PATH (an alias, a hashed name or a function)"
    return ""


_BUILTIN_WORDS = frozenset(
    {
        "cd",
        "echo",
        "printf",
        "test",
        "[",
        "true",
        "false",
        "pwd",
        "export",
        "unset",
        "set",
        "read",
        "local",
        "declare",
        "typeset",
        "readonly",
        "shift",
        "exit",
        "return",
        "wait",
        "type",
        "command",
        "builtin",
        "exec",
        "eval",
        "source",
        ".",
        "let",
        "umask",
        "ulimit",
        "times",
        "jobs",
        "fg",
        "bg",
        "kill",
        "disown",
        "suspend",
        "getopts",
        "dirs",
        "pushd",
        "popd",
        "help",
        "history",
        "fc",
        "logout",
        ":",
        "break",
        "continue",
        "caller",
        "time",
    }
)


def bash_blind(analysis: ShellAnalysis) -> str:
    """With a Bash deny rule in bypassPermissions: why some part runs code no rule can see."""
    for part in _parts(analysis):
        words = _words(part)
        if is_version_query(words):
            continue
        why = runs_unseen_code(words) or renamed_command(words)
        if why:
            return f"{part.text.strip()[:80]}: {why}"
    why = git_tainted(analysis)
    if why:
        return f"a later git call may run what an earlier part configured ({why})"
    if arith_runs_code(analysis):
        # `x=a[\$\(rm\ f\)]; echo $((x))`: the command that runs is in a variable's value.
        return "arithmetic evaluates a variable's value, which can run commands"
    return ""


_ENV_VALUE_OPTS = frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})


def _unwrap_env(words: tuple[str, ...]) -> tuple[str, ...]:
    """`env -i A=1 cat f` -> `cat f`: the program env runs is what reads (or `env` alone)."""
    while words and base_name(words[0]) == "env":
        i = 1
        while i < len(words) and (words[i].startswith("-") or "=" in words[i]):
            if words[i] == "--":
                i += 1
                break
            i += 2 if words[i] in _ENV_VALUE_OPTS else 1
        if i >= len(words):
            return words
        words = words[i:]
    return words


def read_blind(
    analysis: ShellAnalysis, pc: PermissionContext, cwds: list[str], expand: Expand
) -> str:
    """With a Read deny rule in bypassPermissions: why some part may read a denied file that
    no check can see (a path known only at run time, content printed under other names)."""
    if arith_runs_code(analysis):
        return "arithmetic evaluates a variable's value, which can run commands that read files"
    for part in _parts(analysis):
        words = _unwrap_env(_words(part))
        text = part.text.strip()[:80]
        # `TAR_OPTIONS=-Csecrets tar c key.txt`: options no path check sees.
        bad = next((k for k, _ in part.assignments if is_dangerous_var(k)), None)
        bad = bad or exported_danger(part.words) or exported_danger(_words(part))
        if bad:
            return f"{text}: sets {bad}, which can change the files the program reads"
        if any(r.dynamic for r in part.redirects):
            return f"{text}: redirects a file named only at run time"
        name = base_name(words[0]) if words else ""
        if words and name not in NO_PATH_ARGS and (part.dynamic or part.has_substitution):
            return f"{text}: names a file only known at run time"
        if any(i in part.dynamic and has_glob(w) for i, w in enumerate(part.words)):
            return f"{text}: lists names in a folder only known at run time"
        if not words or is_version_query(words):
            continue
        why = list_read_risk(words)
        if why:
            return f"{text}: {why}"
        code = interpreter_family(name) in _INTERPRETERS or code_reason(words)
        why = runs_unseen_code(words) if code else ""
        if why:
            return f"{text}: {why}, which can read any file"
        if name == "git":
            why = git_reveal_risk(words) or git_pathspec_deny(words, cwds, pc)
            if why:
                return f"{text}: {why}"
        why = _recursive_deny(words, cwds, pc)
        if why:
            return f"{text}: {why}"
        if name in ("xargs", "parallel") or any(
            base_name(w) in ("xargs", "parallel") for w in part.words
        ):
            return f"{text}: `xargs` reads file names from its input"
        for w in words[1:]:
            value = w.split("=", 1)[1] if "=" in w else ""
            if value:
                for c in cwds:
                    rule = deny_for(pc, "read", expand(value, c, pc.home) or (value,))
                    if rule is not None:
                        return f"{text}: reads {value}, which {rule.display()} denies"
        if name in _ARCHIVERS:
            operands = [w for w in words[1:] if not w.startswith("-")] or ["."]
            for w in operands:
                for c in cwds:
                    for cand in expand(w, c, pc.home) or (os.path.join(c, w),):
                        rule = deny_below(pc, cand)
                        if rule is not None and os.path.isdir(cand):
                            return f"{text}: copies {cand}, including what {rule.display()} denies"
    return ""
