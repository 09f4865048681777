"""What a Bash command touches on disk: its path arguments, `cd` targets, links and redirects,
expanded the way bash would, and checked against path rules, working folders and protected paths.
bash.py decides the call and describes the order of the checks."""

from __future__ import annotations

import itertools
import os
import re
from functools import lru_cache

from app.permissions.context import PermissionContext
from app.permissions.git_config_files import git_config_writes
from app.permissions.linkwalk import follows_while_walking, link_escape
from app.permissions.messages import rule_reason
from app.permissions.pathcheck import allow_match, ask_for, deny_below, deny_for
from app.permissions.pathprograms import path_write_reason
from app.permissions.paths import DEVICE_PATHS, inside, protected_reason
from app.permissions.shellpaths import Unknowable, expand_word, glob_may_be_protected, has_glob
from app.permissions.treelinks import COPIERS, tree_reason
from tools.decisions import DecisionReason, PermissionDecision
from tools.shell import (
    ShellAnalysis,
    SimpleCommand,
    allow_form,
    is_read_only_part,
)
from tools.shell.optiondata import GIT_SAFE_GLOBAL
from tools.shell.parse import HARMLESS_TARGETS
from tools.shell.readonly import NO_PATH_ARGS

_KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def _path_args(words: tuple[str, ...]) -> list[str]:
    """Arguments that may name files: non-options, the value of every `--opt=VALUE`, and values
    glued to short options (`grep -f.env`, `cp -t/tmp`): bash does not know which options take a
    file, so neither can we."""
    if not words or words[0] in NO_PATH_ARGS:
        return []
    out: list[str] = []
    after_dashdash = False
    for w in words[1:]:
        if after_dashdash or not w.startswith("-"):
            out.append(w)
            key, eq, value = w.partition("=")
            if eq and value and _KEY_RE.fullmatch(key):
                # `dd of=.git/config`, `make O=dir`: an operand's value may be the file it names.
                out.append(value)
        elif w == "--":
            after_dashdash = True
        elif w.startswith("--"):
            if "=" in w:
                out.append(w.split("=", 1)[1])
        else:
            # A value may follow any run of flag letters: `-rf.env` is `-r -f .env`.
            for k in range(2, len(w)):
                if not w[k - 1].isalnum():
                    break
                value = w[k:]
                if len(value) > 1 or value == "~":
                    out.append(value)
    # `curl -d @.env`, `gcc @args`, `-F 'f=@.env'`: a word naming a file the program reads.
    out.extend(w.split("@", 1)[1] for w in list(out) if "@" in w and w.split("@", 1)[1])
    out.extend(w[7:] for w in list(out) if w.lower().startswith("file://"))  # `curl file:///x`
    program = _program_operand(words)
    if program is not None and program in out:
        out.remove(program)  # `sed -n '/x/p' f`, `grep /usr f`: a pattern, not a path
    return out


_JQ_TWO_VALUES = frozenset({"--arg", "--argjson", "--slurpfile", "--rawfile"})
_JQ_ONE_VALUE = frozenset({"--indent", "-L", "--library-path"})


def _program_operand(words: tuple[str, ...]) -> str | None:
    """The operand that is a pattern or program (grep, rg, sed, jq), not a file, or None."""
    name = words[0]
    if name in ("grep", "egrep", "fgrep", "rg"):
        return _grep_operands(words, pattern=True)[0] if _grep_operands(words, True) else None
    if name == "awk":
        i = 1
        while i < len(words):
            w = words[i]
            if w in ("-F", "-v"):
                i += 2
            elif w.startswith("-"):
                i += 1
            else:
                return w
        return None
    if name == "sed" or name == "jq":
        i = 1
        while i < len(words):
            w = words[i]
            if w in ("-e", "--expression", "-f", "--file", "--from-file") or w.startswith(
                ("--expression=", "--file=", "--from-file=")
            ):
                return None  # the program is given by an option
            if name == "jq" and w in _JQ_TWO_VALUES:
                i += 3
                continue
            if name == "jq" and w in _JQ_ONE_VALUE:
                i += 2
                continue
            if not w.startswith("-") or w == "-":
                return w
            i += 1
    return None


_decision_serial = itertools.count()
_serial = [0]


def _expand(path: str, cwd: str, home: str) -> tuple[str, ...]:
    """Every path a shell word can name (braces, `~+`, globs, links), or () when unknowable.

    Memoised within one decision only (the serial changes per decision): the file system may
    change between two calls, and a stale answer about a symlink would be a hole."""
    return _expand_once(path, cwd, home, _serial[0])


@lru_cache(maxsize=512)
def _expand_once(path: str, cwd: str, home: str, serial: int) -> tuple[str, ...]:
    try:
        return tuple(expand_word(path, cwd, home))
    except Unknowable:
        return ()


def _cd_dirs(analysis: ShellAnalysis, cwd: str, home: str) -> list[str]:
    """The working folder and every folder a `cd` of the command may move to (for deny rules)."""
    dirs = [cwd]
    for part in (*analysis.parts, *analysis.nested):
        words = allow_form(part.words) or part.words
        if len(words) == 2 and words[0] in ("cd", "pushd") and 1 not in part.dynamic:
            for d in list(dirs):
                for new in _expand(words[1], d, home):
                    if new not in dirs and len(dirs) < 32:
                        dirs.append(new)
    return dirs


_RECURSIVE_GREPS = frozenset({"grep", "egrep", "fgrep", "rg", "diff"})


def _reads_recursively(words: tuple[str, ...]) -> bool:
    """grep -r/-R, diff -r and rg read the content of every file below their folder arguments."""
    if not words or words[0] not in _RECURSIVE_GREPS:
        return False
    if words[0] == "rg":
        return True
    for prev, w in itertools.pairwise(words):
        if w in ("--recursive", "--dereference-recursive", "--directories=recurse"):
            return True
        if prev in ("-d", "--directories") and w and "recurse".startswith(w):
            return True  # `grep -d recurse`, `-d rec` (grep reads the value abbreviated too)
        if w.startswith("-") and not w.startswith("--") and ("r" in w[1:] or "R" in w[1:]):
            return True
    return False


# grep and rg options that take a value as the next word (the value is not an operand).
_GREP_VALUE_OPTS = frozenset(
    {"-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D", "-g", "-t", "-T", "-j", "-M", "-E",
     "--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context",
     "--directories", "--devices", "--glob", "--type", "--type-not", "--threads",
     "--max-columns", "--encoding", "--label", "--color", "--colors", "--sort", "--sortr"}
)  # fmt: skip


def _grep_operands(words: tuple[str, ...], pattern: bool = False) -> list[str]:
    """The folders and files a grep, rg or diff call reads (the pattern is not one of them);
    with `pattern`, [the pattern operand] or [] when the pattern comes from an option."""
    operands: list[str] = []
    pattern_given = False
    i = 1
    while i < len(words):
        w = words[i]
        key = w.split("=", 1)[0]
        if w == "--":
            operands.extend(words[i + 1 :])
            break
        if w.startswith("-") and w != "-":
            if key in ("-e", "-f", "--regexp", "--file") or (
                not w.startswith("--") and w[-1] in "ef" and len(w) > 2
            ):
                pattern_given = True
            elif not w.startswith("--") and ("e" in w[1:-1] or "f" in w[1:-1]):
                pattern_given = True  # `-ie PAT` style clusters with a glued value
            if key in _GREP_VALUE_OPTS and "=" not in w:
                i += 1
            elif not w.startswith("--") and len(w) > 2 and w[-1] in "efmABCdDgtTjME":
                i += 1  # a cluster ending in a value option: `-rie PAT`
        else:
            operands.append(w)
        i += 1
    if pattern:
        return operands[:1] if words[0] != "diff" and not pattern_given else []
    if words[0] != "diff" and not pattern_given:
        operands = operands[1:]  # the first operand of grep and rg is the pattern
    return operands


def _recursive_deny(words: tuple[str, ...], cwds: list[str], pc: PermissionContext) -> str:
    """Why a recursive read (or copy) of a folder would reach a file a Read deny rule protects:
    by its path, or under another name (a hard link, a followed symbolic link), or ""."""
    if words and "/" in words[0]:
        words = (os.path.basename(words[0]), *words[1:])  # `/usr/bin/grep -r` reads as grep does
    grep = _reads_recursively(words)
    copies = not grep and bool(words) and words[0] in COPIERS
    if not grep and not copies:
        return ""
    if grep:
        args = _grep_operands(words) or ["."]
    else:
        args = [w for w in words[1:] if not w.startswith("-")]
    for arg in args:
        for c in cwds:
            for cand in _expand(arg, c, pc.home) or (arg,):
                rule = deny_below(pc, cand) if grep else None
                if rule is not None:
                    return (
                        f"reads every file below {cand}, including what {rule.display()} from "
                        f"{rule.source} denies"
                    )
                why = tree_reason(cand, words, pc, copies)
                if why:
                    return why
    return ""


# git subcommands that print the content of the files their pathspecs match.
_GIT_CONTENT_SUBS = frozenset({"diff", "log", "whatchanged", "stash", "diff-tree", "diff-index",
                               "diff-files", "show", "blame", "grep", "status", "archive",
                               "format-patch", "range-diff"})  # fmt: skip


def git_pathspec_deny(words: tuple[str, ...], cwds: list[str], pc: PermissionContext) -> str:
    """With a Read deny rule: why a pathspec after `--` may match a denied file, or "". A git
    pathspec is not a path: a folder names every file below it (`git diff -- .`), and a glob
    matches across `/` (`'*.txt'` matches `secrets/key.txt`), so such a pathspec counts as none
    (bare `git diff`). A pathspec naming a file is checked as that file's path elsewhere."""
    if not words or words[0] != "git":
        return ""
    i = 1
    while i < len(words) and words[i] in GIT_SAFE_GLOBAL:
        i += 1
    args = words[i + 1 :]
    if i >= len(words) or words[i] not in _GIT_CONTENT_SUBS or "--" not in args:
        return ""
    for spec in args[args.index("--") + 1 :]:
        if not spec or spec.startswith(":") or any(c in spec for c in "*?[\\"):
            return f"the pathspec {spec!r} may match any file, including denied ones"
        for c in cwds:
            for cand in _expand(spec, c, pc.home) or (os.path.join(c, spec),):
                rule = None if os.path.isfile(cand) else deny_below(pc, cand)
                if rule is not None:
                    return (f"the pathspec {spec} names every file below {cand}, including "
                            f"what {rule.display()} from {rule.source} denies")  # fmt: skip
    return ""


# --- the decision --------------------------------------------------------------------------------


def _fed_by_xargs(words: tuple[str, ...], form: tuple[str, ...]) -> bool:
    """Did stripping wrappers remove an `xargs` (which appends arguments read from input)?"""
    return "xargs" in words[: max(0, len(words) - len(form))]


def _link_escapes(words: tuple[str, ...], cwds: list[str], dirs: tuple[str, ...], home: str) -> str:
    """`ln -s TARGET LINK`: TARGET is resolved from the link's folder, not from the cwd, so
    `cd src && ln -s .. ../up` makes a link to outside the working folders."""
    if not words or words[0] != "ln":
        return ""
    symbolic = any(
        w in ("--symbolic",) or (w.startswith("-") and not w.startswith("--") and "s" in w)
        for w in words[1:]
    )
    args = [w for w in words[1:] if not w.startswith("-")]
    if not symbolic or len(args) < 2:
        return "ln without an explicit link name" if symbolic else ""
    *targets, link = args
    for c in cwds:
        link_paths = _expand(link, c, home)
        bases = {os.path.dirname(x) for x in link_paths} | set(link_paths)
        for target in targets:
            for base in bases:
                cands = _expand(target, base, home)
                if not cands or not all(inside(x, dirs) for x in cands):
                    return f"makes a link to {target}, outside the working folders"
    return ""


def _inside_all(path: str, dirs: tuple[str, ...], home: str) -> bool:
    cands = _expand(path, "/", home)
    return bool(cands) and all(inside(c, dirs) for c in cands)


def _outside(
    words: tuple[str, ...],
    part: SimpleCommand,
    cwds: list[str],
    cwd_known: bool,
    dirs: tuple[str, ...],
    pc: PermissionContext,
    check_all: bool = False,
) -> str:
    """Why a path argument cannot be shown to lie inside the working folders, or ""."""
    args = _path_args(words)
    if words and words[0] not in NO_PATH_ARGS and not args:
        args = ["."]  # `ls`, `git status`: the working folder itself
    if words and words[0] not in NO_PATH_ARGS and _fed_by_xargs(part.words, words):
        return "takes its file arguments from its input through xargs, so they are not known"
    for i, w in enumerate(part.words[1:], start=1):
        if i in part.dynamic and (not words or words[0] not in NO_PATH_ARGS):
            return f"uses {w}, a path only known at run time"
    for r in part.redirects:
        if r.reads and r.target is not None:
            args.append(r.target)
    if words and words[0] in NO_PATH_ARGS:
        # `echo ~/*` lists the names in ~ as `ls ~` does: a glob reads its folder.
        for i, w in enumerate(part.words[1:], start=1):
            if i in part.dynamic and has_glob(w):
                return f"lists the names matching {w}, in a folder only known at run time"
        for w in words[1:]:
            if has_glob(w):
                head = re.split(r"[*?\[]", w, maxsplit=1)[0]
                args.append(head.rsplit("/", 1)[0] + "/" if "/" in head else ".")
                # `echo */*` lists the folders `*` matches: one may be a link leading outside.
                args.extend(_glob_folders(w, cwds, pc.home))
    walks = follows_while_walking(words)
    walked: set[str] = set()
    for arg in args:
        if not cwd_known and not arg.startswith(("/", "~")):
            return f"uses {arg} after a cd whose target is not known"
        for c in cwds:
            cands = list(_expand(arg, c, pc.home))
            if not cands:
                try:
                    expand_word(arg, c, pc.home)
                except Unknowable as exc:
                    return f"uses {arg}: {exc}"
            for cand in cands:
                if cand in DEVICE_PATHS:
                    return f"uses the device {cand}"
                if not inside(cand, dirs):
                    return f"reads {cand}, outside the working folders"
            if check_all and (
                glob_may_be_protected(arg) or any(protected_reason(x) for x in cands)
            ):
                return "touches a protected path"
    if walks:
        # `grep -R k .`: the links met below the folders are read too.
        for root in _walk_roots(words):
            for c in cwds:
                for cand in _expand(root, c, pc.home):
                    if cand not in walked:
                        walked.add(cand)
                        why = link_escape(cand, pc, dirs)
                        if why:
                            return why
    return ""


def _walk_roots(words: tuple[str, ...]) -> list[str]:
    """The folders a link-following walker walks: grep's and rg's operands are known exactly;
    for the others an option may take the next word as its value (`ls -RL -I src`) and the
    default folder is the working one, so that one is walked too."""
    name = os.path.basename(words[0])
    if name in _RECURSIVE_GREPS or name == "rgrep":
        return _grep_operands(words) or ["."]
    return [*(w for w in words[1:] if not w.startswith("-")), "."]


def _glob_folders(word: str, cwds: list[str], home: str) -> list[str]:
    """The folders a glob's folder part matches (`*` of `*/*`), when that part has a glob: each
    is listed, and is checked as the folder it really is."""
    while word.endswith(("/", "/.")) and len(word) > 1:
        word = word[:-1] if word.endswith("/") else word[:-2]  # `*/` names `*`'s matches only
    if "/" not in word:
        return []
    parent = word.rsplit("/", 1)[0]
    if not has_glob(parent):
        return []
    out: list[str] = []
    for c in cwds:
        out.extend(x for x in _expand(parent, c, home) if os.path.isdir(x) and x not in out)
    return out


def _protected(
    part: SimpleCommand,
    words: tuple[str, ...],
    cwds: list[str],
    pc: PermissionContext,
    state: str = "",
) -> str:
    """Why this part writes a protected path (or may), or "". `state`: why the command changes
    what its words name (shell_state.state_change), so that a `~` target is not where it says."""
    targets = [r.target for r in part.redirects if r.writes and r.target and not r.dynamic]
    read_only = is_read_only_part(part)
    if not read_only:
        targets += _path_args(words) if words and words[0] not in NO_PATH_ARGS else []
    if state and words and words[0] == "history" and any(_writes_history(w) for w in words[1:]):
        return f"writes the history file, but {state}"
    for t in targets:
        if t in HARMLESS_TARGETS:
            continue
        if glob_may_be_protected(t):
            return f"writes to {t}, a pattern that can name a protected path"
        if state and t.startswith("~"):
            return f"writes to {t}, but {state}"
        unknown = _unknowable(t, cwds, pc.home)
        if unknown:
            # `cd src && echo x > ~-/.git/config`: only the shell knows where it writes.
            return f"writes to {t}: {unknown}, which may be a protected path"
        for c in cwds:
            # The expansion holds the literal path, every glob and brace reading, and link targets.
            why = next(
                (protected_reason(x) for x in _expand(t, c, pc.home) if protected_reason(x)), ""
            )
            if why:
                return f"writes to a protected path ({why})"
    if words and words[0] == "git":
        # `git config core.fsmonitor CMD` writes .git/config, which later git calls run from.
        for c in cwds:
            for f in git_config_writes(words, c, pc.home):
                why = protected_reason(f)
                if why:
                    return f"writes to a protected path ({why})"
    removes = bool(words) and words[0] in _REMOVERS
    if pc.mode == "bypassPermissions" and any(r.specifier is not None for r in pc.deny):
        # `mv $LATHE_CONFIG_DIR x`, `echo x > $F`: a target only the shell knows may be a
        # settings folder or a protected file; the other modes ask for such words already.
        dynamic = {part.words[i] for i in part.dynamic if i < len(part.words)}
        hidden = [r.target for r in part.redirects if r.writes and r.dynamic and r.target]
        if words and (words[0] in _REMOVERS or words[0] in _TARGET_LAST or words[0] in _MAKERS):
            hidden += [t for t in _write_targets(part, words, read_only) if t in dynamic]
        if hidden:
            return f"writes to {hidden[0]}, a path only the shell knows, which may be protected"
    for t in _write_targets(part, words, read_only):
        for c in cwds:
            for x in _expand(t, c, pc.home):
                why = path_write_reason(x, pc, c, removes)
                if why:
                    return f"writes to {x} ({why})"
    return ""


# Commands whose last operand (or `-t DIR`) is the one they write; the others are read.
_MOVES = frozenset({"cd", "pushd", "popd"})
# Commands that take their operands away (a folder moved or deleted can be put back as a link).
_REMOVERS = frozenset({"mv", "rm", "rmdir", "unlink"})
_TARGET_LAST = frozenset({"cp", "mv", "ln", "install", "rsync", "scp", "link"})
# Commands whose operands are the files they create or change.
_MAKERS = frozenset({"touch", "mkdir", "tee", "truncate", "chmod", "chown", "chgrp", "shred"})


def _write_targets(
    part: SimpleCommand, words: tuple[str, ...], read_only: bool | None = None
) -> list[str]:
    targets = [r.target for r in part.redirects if r.writes and r.target and not r.dynamic]
    targets = [t for t in targets if t not in HARMLESS_TARGETS]
    if read_only is None:
        read_only = is_read_only_part(part)
    if read_only or not words or words[0] in NO_PATH_ARGS or words[0] in _MOVES:
        return targets
    if words[0] not in _TARGET_LAST or words[0] in _REMOVERS:
        # `dd of=FILE`: an operand's value after `=` may be the file written.
        values = [w.split("=", 1)[1] for w in words[1:] if "=" in w and not w.startswith("-")]
        return targets + _path_args(words) + values
    operands: list[str] = []
    after_dashdash = False
    for prev, w in itertools.pairwise(words):
        if prev in ("-t", "--target-directory"):
            targets.append(w)
        elif w.startswith("--target-directory="):
            targets.append(w.split("=", 1)[1])
        elif w.startswith("-t") and len(w) > 2 and not w.startswith("--"):
            targets.append(w[2:])
        elif after_dashdash or not w.startswith("-"):
            operands.append(w)
        elif w == "--":
            after_dashdash = True
    return targets + operands[-1:]


def _redirect_need(
    part: SimpleCommand,
    cwds: list[str],
    cwd_known: bool,
    dirs: tuple[str, ...],
    pc: PermissionContext,
    allowed_by: str,
) -> str:
    """Why a write redirect of an allowed part needs approval ("" when it does not). Whatever
    allowed the part (`allowed_by`: rule, check or mode), only an Edit allow rule, a mode that
    allows edits, or a rule for all of Bash or for the whole command text ("whole") covers the
    file a redirect writes inside the working folders."""
    for r in part.redirects:
        if not r.writes:
            continue
        if r.dynamic:
            return "redirects output to a target only known at run time"
        if r.target is None or r.target in HARMLESS_TARGETS:
            continue
        if not cwd_known and not r.target.startswith(("/", "~")):
            return f"writes to {r.target} after a cd whose target is not known"
        for c in cwds:
            cands = _expand(r.target, c, pc.home)
            if not cands:
                return f"writes to {r.target}, a path only known at run time"
            if allow_match(pc, "write", cands) is not None:
                continue
            if ask_for(pc, "write", cands) is not None:
                return f"writes to {cands[0]}, which a rule says to ask about"
            if not all(inside(x, dirs) for x in cands):
                return f"writes to {cands[0]}, outside the working folders"
            # A rule or the read-only set names a command, not the files it may write: a redirect
            # to a file (`git status > package.json`) needs its own approval.
            if allowed_by != "whole" and pc.mode not in ("acceptEdits", "bypassPermissions"):
                return f"writes to {cands[0]}"
    return ""


def pending_writes(
    analysis: ShellAnalysis, pc: PermissionContext, cwd: str, skip: SimpleCommand | None = None
) -> frozenset[str]:
    """Every file some part of the command (but `skip`) writes, absolute (for every folder a
    `cd` reaches)."""
    cwds = _cd_dirs(analysis, cwd, pc.home)
    out: set[str] = set()
    for part in (*analysis.parts, *analysis.nested):
        if part is skip:
            continue
        form = allow_form(part.words) or part.words
        for target in _write_targets(part, form):
            for c in cwds:
                out.update(_expand(target, c, pc.home))
    return frozenset(out)


def _writes_history(word: str) -> bool:
    return word.startswith("-") and not word.startswith("--") and bool(set(word[1:]) & set("wa"))


def _unknowable(path: str, cwds: list[str], home: str) -> str:
    for c in cwds:
        if not _expand(path, c, home):
            try:
                expand_word(path, c, home)
            except Unknowable as exc:
                return str(exc)
    return ""


def path_denies(
    analysis: ShellAnalysis, pc: PermissionContext, cwd: str
) -> PermissionDecision | None:
    """The deny of a path rule (Read, Edit...) that some part's files, redirects, globs or the
    config file `git config` writes fall under, or None."""
    if not any(r.specifier is not None and r.tool != "Bash" for r in pc.deny):
        return None
    cwds = _cd_dirs(analysis, cwd, pc.home)
    for part in (*analysis.parts, *analysis.nested):
        checks: list[tuple[str, str]] = []
        for r in part.redirects:
            if r.target is not None and not r.dynamic:
                checks.append((r.target, "write" if r.writes else "read"))
        form = allow_form(part.words) or part.words
        writes = not is_read_only_part(part)
        for arg in _path_args(form):
            checks.append((arg, "write" if writes else "read"))
            if writes:
                checks.append((arg, "read"))
        # `echo secrets/*` prints the names in secrets/ as `ls` would: a glob reads its matches.
        checks += [(w, "read") for w in form[1:] if has_glob(w)]
        if form and form[0] == "git":
            checks += [(f, "write") for c in cwds for f in git_config_writes(form, c, pc.home)]
        for path, access in checks:
            unknown = _unknowable(path, cwds, pc.home) if pc.mode == "bypassPermissions" else ""
            if unknown:
                # `cd src && cat ~-/.env`: a path only the running shell knows may be a denied
                # one; bypassPermissions has nothing else to stop it (the other modes ask, as
                # such a path is never shown to be inside the working folders).
                text = f"{part.text.strip()[:80]}: {unknown}, so the deny rules cannot be checked"
                return PermissionDecision.deny(text, DecisionReason("check", text, part=part.text))
            cands = tuple(x for c in cwds for x in _expand(path, c, pc.home))
            # A folder argument (`grep -r k ~/.ssh`) reaches what a rule denies inside it.
            cands = cands + tuple(c.rstrip("/") + "/x" for c in cands)
            rule = deny_for(pc, access, cands)  # type: ignore[arg-type]
            if rule is not None:
                reason = rule_reason(rule, "denied", part.text)
                return PermissionDecision.deny(reason.text, reason)
    return None
