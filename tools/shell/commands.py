"""What a simple command really runs: wrappers, interpreters given code, and hidden inner commands.

Two views of one command, on purpose asymmetric:
- `allow_form`: the words an allow rule is matched against. Only the documented wrappers are
  stripped; anything ambiguous stays, so that it needs a rule of its own.
- `deny_forms`: every plausible reading of the command (wrappers, `env`, `sudo`, git's global
  options, the command's basename...), so that a deny rule cannot be dodged by dressing a command up.
"""

from __future__ import annotations

import os
import re

from tools.shell.getopt import expand_long_options, skip_options

# Wrapper -> options that take a value. `None` means the wrapper takes no options we accept.
_WRAPPER_VALUE_OPTS: dict[str, frozenset[str]] = {
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "time": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "command": frozenset(),
}
_WRAPPER_FLAG_OPTS: dict[str, frozenset[str]] = {
    "timeout": frozenset({"--preserve-status", "--foreground", "-v", "--verbose"}),
    "time": frozenset({"-p"}),
    "nice": frozenset(),
    "nohup": frozenset(),
    "stdbuf": frozenset(),
    "command": frozenset({"-p"}),
}

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox"})
# Interpreter -> the flags that hand it a program on the command line.
_CODE_FLAGS: dict[str, frozenset[str]] = {
    "python": frozenset({"-c"}),
    "node": frozenset({"-e", "--eval", "-p", "--print"}),
    "nodejs": frozenset({"-e", "--eval", "-p", "--print"}),
    "deno": frozenset({"eval"}),
    "bun": frozenset({"-e", "--eval", "-p", "--print"}),
    "perl": frozenset({"-e", "-E"}),
    "ruby": frozenset({"-e"}),
    "php": frozenset({"-r"}),
    "lua": frozenset({"-e"}),
    "osascript": frozenset({"-e"}),
    "pwsh": frozenset({"-c", "-command", "-Command"}),
    "R": frozenset({"-e"}),
    "Rscript": frozenset({"-e"}),
}
# Programs whose first argument is a program in their own language.
# (awk's `system()` runs commands; sed and jq stay ordinary commands a rule may name.)
_PROGRAM_ARG = frozenset({"awk", "gawk", "mawk", "nawk"})
_EVALUATORS = frozenset({"eval", "exec", "source", ".", "builtin", "trap", "coproc"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_XARGS_VALUE_OPTS = frozenset(
    {"-I", "-i", "-n", "-P", "-L", "-l", "-s", "-d", "-E", "-e", "-a", "--arg-file", "-R"}
)
_GIT_VALUE_OPTS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})
_SUDO_VALUE_OPTS = frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"})
_ENV_VALUE_OPTS = frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})
# Variables that change what a later command runs or loads: never stripped before matching.
DANGEROUS_VARS = frozenset(
    {
        "PATH",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "DYLD_INSERT_LIBRARIES",
        "DYLD_LIBRARY_PATH",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "NODE_OPTIONS",
        "NODE_PATH",
        "BASH_ENV",
        "ENV",
        "IFS",
        "PS4",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "PERL5LIB",
        "PERL5OPT",
        "RUBYOPT",
        "RUBYLIB",
        "GIT_EXEC_PATH",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_ASKPASS",
        "GIT_EDITOR",
        "GIT_PAGER",
        "GIT_CONFIG",
        "GIT_CONFIG_GLOBAL",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_CONFIG_PARAMETERS",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "HOME",
        "CDPATH",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "LESSOPEN",
        "MANPAGER",
        "BROWSER",
        "SSH_ASKPASS",
    }
)


# Variables added after a red-team pass: each makes an allowed command run or write something else.
# `GIT_EXTERNAL_DIFF=cmd git diff`, `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor ... git
# status` and `GIT_TRACE=/path git status` all run or write through a read-only git command, so
# every GIT_ variable counts except the author and committer identity.
_MORE_DANGEROUS_VARS = frozenset(
    {
        "RIPGREP_CONFIG_PATH",  # a config file with `--pre=cmd`
        "XDG_CONFIG_HOME",  # git reads $XDG_CONFIG_HOME/git/config (core.fsmonitor, core.pager)
        "LESSCLOSE",
        "GCONV_PATH",  # glibc loads iconv modules from here
        "GLIBC_TUNABLES",
        "LOCPATH",
        "ZDOTDIR",
        "INPUTRC",
        # Variables a program reads as more command-line options (or as the program it starts):
        # `TAR_OPTIONS=-Irm tar c ...`, `ZIPOPT='-TT cmd' zip ...` run cmd as the options would.
        "TAR_OPTIONS", "TAPE", "ZIPOPT", "ZIP", "UNZIP", "UNZIPOPT", "ZIPINFO", "ZIPINFOOPT",
        "GZIP", "XZ_OPT", "XZ_DEFAULTS", "ZSTD", "BZIP2", "BZIP", "LZOP", "LESS", "LESSKEY",
        "LESSKEYIN", "LESSKEY_SYSTEM", "LESSEDIT", "LESSHISTFILE", "MORE", "GREP_OPTIONS",
        "RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH", "MANOPT", "MANPATH", "MANROFFOPT",
        "MANPL", "SYSTEMD_PAGER", "SYSTEMD_LESS", "SYSTEMD_EDITOR", "SUDO_EDITOR",
        "SUDO_ASKPASS", "FCEDIT", "PARALLEL", "PARALLEL_SHELL", "SHELL", "CURL_HOME", "WGETRC",
        "GNUPGHOME", "OPENSSL_CONF", "BAT_PAGER", "BAT_CONFIG_PATH", "PERLLIB", "PERL5DB",
        "RUSTC_WRAPPER", "TERMINFO",
        # bash evaluates a value assigned to these as arithmetic: `RANDOM='a[$(id)]'` runs id.
        "RANDOM", "SRANDOM", "OPTIND", "HISTCMD",
    }
)  # fmt: skip
_SAFE_GIT_PREFIXES = ("GIT_AUTHOR_", "GIT_COMMITTER_")


def is_dangerous_var(name: str) -> bool:
    if name.startswith("GIT_") and not name.startswith(_SAFE_GIT_PREFIXES):
        return True
    # npm reads every npm_config_* variable as a setting (`npm_config_script_shell=./x`).
    if name.lower().startswith("npm_config_"):
        return True
    return (
        name in DANGEROUS_VARS
        or name in _MORE_DANGEROUS_VARS
        or name.startswith(("LD_", "DYLD_", "BASH_FUNC_", "YARN_"))
    )


_ASSIGNMENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_EXPORTERS = frozenset({"export", "declare", "typeset", "local", "readonly", "env"})


def exported_danger(words: tuple[str, ...]) -> str:
    """The variable of is_dangerous_var that `export NAME=V`, `declare -x NAME=V`, `export NAME`
    (a value set before) or `env NAME=V cmd` gives the programs this command runs, or ""."""
    if not words or base_name(words[0]) not in _EXPORTERS:
        return ""
    env = base_name(words[0]) == "env"
    for w in words[1:]:
        if w.startswith("-"):
            continue
        name, _, value = w.partition("=")
        if env and "=" not in w:
            break  # the command env runs
        if name.isidentifier() and is_dangerous_var(name):
            return name
        if not env and value.isidentifier() and is_dangerous_var(value):
            return value  # `declare -n X=TAR_OPTIONS`: assigning X sets TAR_OPTIONS
    return ""


def base_name(word: str) -> str:
    """`/usr/bin/rm` -> `rm`; `python3.12` -> `python3.12` (see `interpreter_family`)."""
    return os.path.basename(word) if "/" in word else word


def interpreter_family(name: str) -> str:
    """`python3.12` -> `python`, `/usr/bin/perl5.36` -> `perl`."""
    name = base_name(name)
    m = re.match(r"^(python|pypy|perl|ruby|php|node|lua)[0-9.]*$", name)
    return m.group(1) if m and m.group(1) != "pypy" else ("python" if m else name)


def strip_wrappers(words: tuple[str, ...]) -> tuple[str, ...] | None:
    """Remove `timeout 5`, `nice -n 1`, `nohup`, `stdbuf -oL`, `command`, `time`, bare `xargs`.

    Returns None when a wrapper is used in a form we do not understand (then no prefix rule may
    approve the command).
    """
    while words:
        name = words[0]
        if name == "xargs":
            # Only bare xargs: with options it may substitute arguments anywhere.
            if len(words) > 1 and words[1].startswith("-"):
                return None
            words = words[1:]
            continue
        if name not in _WRAPPER_VALUE_OPTS:
            return words
        if name == "command" and len(words) > 1 and words[1] in ("-v", "-V"):
            return words
        value_opts = _WRAPPER_VALUE_OPTS[name]
        flag_opts = _WRAPPER_FLAG_OPTS[name]
        i = 1
        while i < len(words) and words[i].startswith("-") and words[i] != "--":
            opt = words[i]
            key = opt.split("=", 1)[0]
            if key in value_opts and "=" not in opt:
                i += 2
            elif (
                key in value_opts
                or opt in flag_opts
                or (name == "nice" and re.fullmatch(r"-\d+", opt))
                or (name == "stdbuf" and re.fullmatch(r"-[ioe]\S+", opt))
                or (name == "timeout" and re.fullmatch(r"-[sk]\S+", opt))
            ):
                i += 1
            else:
                return None
        if i < len(words) and words[i] == "--":
            i += 1
        if name == "timeout":
            if i >= len(words):
                return None
            i += 1  # the duration
        words = words[i:]
    return words


def code_reason(words: tuple[str, ...]) -> str:
    """Why this command runs code no prefix rule can judge, or "" when it does not."""
    if not words:
        return ""
    name = base_name(words[0])
    family = interpreter_family(name)
    args = words[1:]
    if name in _EVALUATORS:
        return f"`{name}` runs arbitrary code"
    if name in SHELLS:
        if any(
            a == "-c" or (a.startswith("-") and not a.startswith("--") and "c" in a) for a in args
        ):
            return f"`{name} -c` runs code given on the command line"
        if not any(not a.startswith("-") for a in args):
            return f"`{name}` without a script reads code from its input"
        return ""
    flags = _CODE_FLAGS.get(family)
    if flags is not None:
        if any(a in flags or any(a.startswith(f) and len(f) == 2 for f in flags) for a in args):
            return f"`{name}` is given code on the command line"
        script_args = [a for a in args if not a.startswith("-")]
        if (not script_args or script_args[0] == "-") and "-m" not in args:
            return f"`{name}` without a script reads code from its input"
        return ""
    if name in ("env", "sudo", "doas", "su", "chroot", "nsenter", "unshare", "watch", "parallel"):
        return f"`{name}` runs another command"
    if name == "xargs" and len(args) > 0 and args[0].startswith("-"):
        return "`xargs` with options runs another command"
    if name in ("find", "fd") and any(a in _FIND_EXEC or a in ("-x", "-X", "--exec") for a in args):
        return f"`{name} -exec` runs another command"
    if name == "git" and any(a == "-c" or a.startswith("--config-env") for a in args[:4]):
        return "`git -c` can set options that run programs"
    if name in _PROGRAM_ARG and args and not awk_is_plain(args):
        return f"`{name}` runs a program given on the command line"
    return ""


# What makes an awk program more than text processing: running commands (`system`, pipes,
# `getline` from a command), writing files (`>`), reading the environment, loading extensions.
_AWK_UNSAFE = re.compile(r"system|getline|ENVIRON|PROCINFO|close|fflush|[|>@`]|\\")


def awk_is_plain(args: tuple[str, ...]) -> bool:
    """`awk -F: '{print $1}' f`: a program that only reads its input and prints."""
    program: str | None = None
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-F", "-v"):
            i += 2
            continue
        if (a.startswith("-F") or a.startswith("-v")) and len(a) > 2:
            i += 1
            continue
        if a.startswith("-"):
            return False  # -f FILE, -e, -i, -l, --exec...: a program or extension from elsewhere
        program = a
        break
    return program is not None and not _AWK_UNSAFE.search(program)


def allow_form(words: tuple[str, ...]) -> tuple[str, ...] | None:
    """The words allow rules are matched against, or None when wrappers hide what runs. Long
    options are written out in full (`grep --recur` -> `grep --recursive`): every check that
    matches options then sees the option the program reads."""
    form = strip_wrappers(words)
    return None if form is None else expand_long_options(form)


def deny_forms(words: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every reading of `words` a deny rule must be checked against (including inner commands)."""
    seen: list[tuple[str, ...]] = []
    todo = [words]
    while todo:
        form = todo.pop()
        if not form or form in seen:
            continue
        seen.append(form)
        full = expand_long_options(form)
        if full != form:
            todo.append(full)
        name = form[0]
        base = base_name(name)
        if base != name:
            todo.append((base, *form[1:]))
        stripped = strip_wrappers(form)
        if stripped is not None and stripped != form:
            todo.append(stripped)
        elif stripped is None or base in _WRAPPER_VALUE_OPTS or base == "xargs":
            todo.append(_skip_options(form[1:], frozenset()))
        if base in ("env", "sudo", "doas", "exec", "builtin", "nohup", "xargs", "watch", "chroot"):
            opts = _SUDO_VALUE_OPTS if base in ("sudo", "doas") else _ENV_VALUE_OPTS
            if base == "exec":
                opts = frozenset({"-a"})  # `exec -a NAME rm f` runs rm
            if base == "xargs":
                opts = _XARGS_VALUE_OPTS
            rest = _skip_options(form[1:], opts)
            while rest and _ASSIGNMENT_RE.match(rest[0]):
                rest = rest[1:]
            if base == "chroot" and rest:
                rest = rest[1:]  # the new root
            todo.append(rest)
        if base == "git":
            todo.append(("git", *_skip_options(form[1:], _GIT_VALUE_OPTS)))
        if base in ("find", "fd"):
            for i, w in enumerate(form):
                if w in _FIND_EXEC or w in ("-x", "-X", "--exec"):
                    inner = []
                    for x in form[i + 1 :]:
                        if x in (";", "+", "\\;"):
                            break
                        inner.append(x)
                    todo.append(tuple(inner))
    return seen


def _skip_options(words: tuple[str, ...], value_opts: frozenset[str]) -> tuple[str, ...]:
    return skip_options(words, value_opts)


def inner_code(words: tuple[str, ...]) -> str | None:
    """The shell code `sh -c CODE` or `eval ARGS` would run, to analyse it for deny rules."""
    if not words:
        return None
    name = base_name(words[0])
    if name == "eval":
        return " ".join(words[1:])
    if name in SHELLS:
        for i, a in enumerate(words[1:], start=1):
            if a == "-c" or (a.startswith("-") and not a.startswith("--") and "c" in a):
                return words[i + 1] if i + 1 < len(words) else ""
    return None
