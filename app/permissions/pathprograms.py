"""The program a command word runs, found as bash finds it, and the folders that choose it.

A Bash deny rule names a program (`Bash(rm:*)`), but bash runs whatever file PATH finds first
under the word: `cp /bin/rm ~/.local/bin/ls` (or `ln -s /bin/rm ...`, or a copy in a project
folder on PATH such as `node_modules/.bin`) turns `ls victim` into rm. Two checks close it:

- Identity. Each command word of every reading is looked up in the PATH the Bash tool's
  commands get (relative entries against the part's folder). If the file found is one of the
  denied programs' files (the same inode or real path, or a byte-for-byte copy) and is not
  what the word's own name is in the system folders (a multi-call binary such as busybox answers
  to its name), the reading is matched again as that program: `ls push` run by a copy of git
  meets `Bash(git push:*)`.
- Placement. A copy that differs by a byte, or a script that calls rm, has no identity to
  compare. So a write into a folder on PATH (a file directly in it, the folder itself, or an
  ancestor that would replace it) is never auto-allowed, by Bash or by Write/Edit: it asks in
  every mode, bypassPermissions included while any deny rule with a specifier exists (without
  one, bypassPermissions has nothing left to protect).
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from app.config.rules import Rule
from app.permissions.context import BashRuleIndex, PermissionContext
from app.permissions.matching import bash_matches, bash_pattern, canonical
from app.permissions.messages import rule_reason
from app.permissions.settings_homes import replaces_settings
from tools.decisions import PermissionDecision
from tools.process.group import command_env

SYSTEM_FOLDERS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
_DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"  # bash's own when PATH is unset


_TTL = 1.0
_path_memo: list[tuple[float, str | None, str]] = []


def bash_path() -> str:
    """The PATH a Bash command starts with (lathe's, after the settings' `env` map). Kept for a
    second: building the child environment costs more than a decision may."""
    now = time.monotonic()
    own = os.environ.get("PATH")
    if _path_memo and now - _path_memo[0][0] < _TTL and _path_memo[0][1] == own:
        return _path_memo[0][2]
    value = command_env().get("PATH")
    value = _DEFAULT_PATH if value is None else value
    _path_memo[:] = [(now, own, value)]
    return value


def path_folders(cwd: str, home: str, path: str | None = None) -> tuple[str, ...]:
    """PATH's folders, absolute: an empty entry or `.` is the folder the command runs in."""
    return _path_folders(cwd, home, bash_path() if path is None else path)


@lru_cache(maxsize=256)
def _path_folders(cwd: str, home: str, path: str) -> tuple[str, ...]:
    out: list[str] = []
    for entry in path.split(":"):
        if entry == "~" or entry.startswith("~/"):
            entry = home + entry[1:]
        folder = os.path.normpath(os.path.join(cwd, entry)) if entry else cwd
        if folder not in out:
            out.append(folder)
    return tuple(out)


_forms_memo: dict[tuple[str, str, str], tuple[float, list[set[str]]]] = {}


def _folder_forms(cwd: str, home: str) -> list[set[str]]:
    """Each PATH folder as written and through its links (kept for a second)."""
    path = bash_path()
    key = (path, cwd, home)
    now = time.monotonic()
    hit = _forms_memo.get(key)
    if hit is not None and now - hit[0] < _TTL:
        return hit[1]
    out = []
    for folder in path_folders(cwd, home, path):
        forms = {folder}
        try:
            forms.add(os.path.realpath(folder))
        except (OSError, ValueError):
            pass
        out.append(forms)
    if len(_forms_memo) > 64:
        _forms_memo.clear()
    _forms_memo[key] = (now, out)
    return out


def _executable(path: str) -> bool:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and os.access(path, os.X_OK)


_listings: dict[str, tuple[int, frozenset[str]]] = {}
_RACY_NS = 2_000_000_000  # a listing younger than its folder's last change may miss a name


def _names(folder: str, seen: dict[str, frozenset[str] | None]) -> frozenset[str] | None:
    """The names in a PATH folder: listed again whenever its mtime moved (checked once per
    decision, `seen`), and never trusted from a cache within two seconds of a change."""
    if folder in seen:
        return seen[folder]
    try:
        st = os.stat(folder)
    except (OSError, ValueError):
        seen[folder] = None
        return None
    hit = _listings.get(folder)
    if hit is not None and hit[0] == st.st_mtime_ns:
        seen[folder] = hit[1]
        return hit[1]
    try:
        names = frozenset(os.listdir(folder))
    except OSError:
        names = frozenset()
    if time.time_ns() - st.st_mtime_ns > _RACY_NS:
        if len(_listings) > 256:
            _listings.clear()
        _listings[folder] = (st.st_mtime_ns, names)
    seen[folder] = names
    return names


def resolve(
    word: str,
    cwd: str,
    home: str,
    path: str | None = None,
    seen: dict[str, frozenset[str] | None] | None = None,
) -> str | None:
    """The file bash would run for `word` in `cwd` (builtins aside: `env echo` runs the file)."""
    if "/" in word:
        if word.startswith("~/"):
            word = home + word[1:]
        full = os.path.join(cwd, word)
        return full if _executable(full) else None
    seen = {} if seen is None else seen
    for folder in path_folders(cwd, home, path):
        names = _names(folder, seen)
        if names is None or word not in names:
            continue
        full = os.path.join(folder, word)
        if _executable(full):
            return full
    return None


# --- identity of the denied programs ------------------------------------------------------------


@dataclass
class _Program:
    name: str
    ident: tuple[int, int]
    size: int
    path: str
    digest: str = ""


@dataclass
class DeniedPrograms:
    programs: list[_Program] = field(default_factory=list)

    def match(self, file: str) -> _Program | None:
        try:
            st = os.stat(file)
        except (OSError, ValueError):
            return None
        ident = (st.st_dev, st.st_ino)
        for p in self.programs:
            if p.ident == ident:
                return p
        for p in self.programs:
            if p.size == st.st_size and _digest(file) == _program_digest(p):
                return p
        return None


def _digest(path: str) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 16), b""):
                h.update(chunk)
    except OSError:
        return ""
    return h.hexdigest()


def _program_digest(p: _Program) -> str:
    if not p.digest:
        p.digest = _digest(p.path)
    return p.digest


def program_names(rules: Iterable[Rule]) -> list[str]:
    """The programs Bash deny rules name by their first word (`rm` of `Bash(rm:*)`)."""
    names: list[str] = []
    for rule in rules:
        pattern = bash_pattern(rule.specifier)
        if pattern.kind == "prefix" and pattern.prefix:
            first = pattern.prefix[0]
        elif pattern.kind == "exact" and pattern.exact:
            first = pattern.exact.split(" ", 1)[0]
        elif pattern.kind == "wildcard":
            first = (rule.specifier or "").strip().split(" ", 1)[0]
            if "*" in first or not first:
                continue
        else:
            continue
        for name in (first, os.path.basename(first)):
            if name and name not in names:
                names.append(name)
    return names


def denied_programs(pc: PermissionContext, rules: tuple[Rule, ...], cwd: str) -> DeniedPrograms:
    """The files the denied programs' names lead to: every PATH folder's and the system ones'."""
    path = bash_path()
    cache: dict[tuple[str, str], DeniedPrograms] | None = pc.__dict__.get("_denied_programs")
    if cache is None:
        cache = {}
        object.__setattr__(pc, "_denied_programs", cache)
    key = (path, cwd)
    found = cache.get(key)
    if found is not None:
        return found
    found = DeniedPrograms()
    seen: set[tuple[int, int]] = set()
    folders = [*path_folders(cwd, pc.home, path), *SYSTEM_FOLDERS]
    for name in program_names(rules):
        files = [name] if "/" in name else [os.path.join(f, name) for f in folders]
        for file in files:
            if not _executable(file):
                continue
            st = os.stat(file)
            ident = (st.st_dev, st.st_ino)
            if ident not in seen:
                seen.add(ident)
                found.programs.append(_Program(os.path.basename(name), ident, st.st_size, file))
    if len(cache) > 16:
        cache.clear()
    cache[key] = found
    return found


def _system_identities(name: str) -> set[tuple[int, int]]:
    out = set()
    for folder in SYSTEM_FOLDERS:
        try:
            st = os.stat(os.path.join(folder, name))
        except (OSError, ValueError):
            continue
        out.add((st.st_dev, st.st_ino))
    return out


def runs_as(
    word: str,
    cwd: str,
    denied: DeniedPrograms,
    home: str,
    seen: dict[str, frozenset[str] | None] | None = None,
) -> tuple[str, str] | None:
    """(denied program, the file found) when `word` run in `cwd` runs a denied program under
    another name, or None."""
    if not denied.programs:
        return None
    file = resolve(word, cwd, home, seen=seen)
    if file is None:
        return None
    program = denied.match(file)
    name = os.path.basename(word)
    if program is None or program.name == name:
        return None
    try:
        st = os.stat(file)
    except OSError:
        return None
    if (st.st_dev, st.st_ino) in _system_identities(name):
        return None  # a multi-call binary (busybox): it runs as the name it is called by
    return program.name, file


# --- placement: writes that would choose what a word runs ------------------------------------


def path_write_reason(target: str, pc: PermissionContext, cwd: str, removes: bool = False) -> str:
    """Why writing `target` (absolute, normalised) may change which program a command word
    runs, or "": it is a folder on PATH, lies directly in one, or is an ancestor of one that it
    may replace (`removes`: the command moves or deletes it, `mv ~/.local x`). The callers pass
    every reading of the path, link targets included (bash_paths._expand, paths.candidates)."""
    if pc.mode == "bypassPermissions" and not any(r.specifier is not None for r in pc.deny):
        return ""
    # Folders of later sessions' settings taken away or replaced (`mv ~/.config/lathe x`).
    settings = replaces_settings(target, pc.home, pc.project_dir, removes)
    if settings:
        return settings
    parent = os.path.dirname(target)
    below = target.rstrip("/") + "/"
    for folder_forms in _folder_forms(cwd, pc.home):
        for f in folder_forms:
            if target == f or parent == f:
                return f"{f} is a folder on PATH: a file put there runs in place of a program"
            # A new (or linked) ancestor replaces the folder: `ln -s /x ~/.local`. Into an
            # existing real folder a write only adds a name (`cp f .`).
            if f.startswith(below) and (
                removes or os.path.islink(target) or not os.path.isdir(target)
            ):
                return f"{target} would replace {f}, a folder on PATH"
    return ""


def renamed_denied(
    index: BashRuleIndex,
    readings: list[tuple[str, tuple[str, ...]]],
    cwds: list[str],
    pc: PermissionContext,
) -> PermissionDecision | None:
    """A reading (part text, words) whose command word PATH resolves to a denied program under
    another name, matched again as that program: the denial, or None."""
    if not index.rules:
        return None
    done: set[tuple[str, str]] = set()
    seen: dict[str, frozenset[str] | None] = {}
    for part, form in readings:
        if not form:
            continue
        word = form[0]
        for c in cwds:
            if (word, c) in done:
                continue
            done.add((word, c))
            found = runs_as(word, c, denied_programs(pc, index.rules, c), pc.home, seen)
            if found is None:
                found = _runs_path_named(word, c, index.rules, pc.home, seen)
            if found is None:
                continue
            name, file = found
            words = (name, *form[1:])
            text = canonical(words)
            for rule in index.for_words(words):
                if bash_matches(bash_pattern(rule.specifier), words, text):
                    reason = rule_reason(rule, "denied", part)
                    why = f"`{word}` runs {file}, which is the program {name}: {reason.text}"
                    return PermissionDecision.deny(why, replace(reason, text=why))
    return None


def _runs_path_named(
    word: str,
    cwd: str,
    rules: tuple[Rule, ...],
    home: str,
    seen: dict[str, frozenset[str] | None],
) -> tuple[str, str] | None:
    """(the rule's program path, the file found) when a deny rule names a program by its path
    (`Bash(/bin/rm:*)`) and `word` (`rm`) runs that very file: the rule's path is resolved as the
    command's word is, so the rule stops the program under its bare name too."""
    paths = [n for n in _path_named(rules) if os.path.basename(n) == word]
    if not paths or "/" in word:
        return None
    file = resolve(word, cwd, home, seen=seen)
    if file is None:
        return None
    try:
        st = os.stat(file)
    except OSError:
        return None
    for path in paths:
        try:
            other = os.stat(path)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return path, file
    return None


_PATH_NAMED: dict[int, tuple[tuple[Rule, ...], tuple[str, ...]]] = {}


def _path_named(rules: tuple[Rule, ...]) -> tuple[str, ...]:
    """The deny rules' programs named by a path (most rule sets have none: then nothing more).
    Memoised by the rules' identity (hashing 200 rules each decision would cost more)."""
    hit = _PATH_NAMED.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    found = tuple(n for n in program_names(rules) if "/" in n)
    if len(_PATH_NAMED) > 32:
        _PATH_NAMED.clear()
    _PATH_NAMED[id(rules)] = (rules, found)
    return found
