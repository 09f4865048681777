"""Path rules against a path: deny needs any reading of the path, allow needs every reading."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from typing import Literal

from app.config.rules import Rule, path_rule_tools
from app.permissions.context import PermissionContext
from app.permissions.matching import (
    CompiledPathRule,
    compile_path_rule,
    compiled_matches,
    rel_matches,
    relative_to_root,
)

Access = Literal["read", "write"]


def _families(access: Access, behavior: str) -> frozenset[str]:
    reads = path_rule_tools("path_read")
    if access == "read":
        return reads
    # A Read deny also blocks writing the same path: what may not be seen may not be changed.
    writes = path_rule_tools("path_write")
    return writes | reads if behavior == "deny" else writes


def _path_rules(rules: Iterable[Rule], access: Access, behavior: str) -> list[Rule]:
    fams = _families(access, behavior)
    return [r for r in rules if r.specifier is not None and r.tool in fams]


def _cached(pc: PermissionContext, access: Access, behavior: str) -> list[CompiledPathRule]:
    """The path rules of one behavior and access, filtered and compiled once per context snapshot."""
    cache: dict[tuple[str, str], list[CompiledPathRule]] | None = pc.__dict__.get("_path_index")
    if cache is None:
        cache = {}
        object.__setattr__(pc, "_path_index", cache)
    key = (access, behavior)
    if key not in cache:
        rules = {"allow": pc.allow, "deny": pc.deny, "ask": pc.ask}[behavior]
        cache[key] = [
            compile_path_rule(r, pc.project_dir, pc.home)
            for r in _path_rules(rules, access, behavior)
        ]
    return cache[key]


def first_match(
    pc: PermissionContext, behavior: str, access: Access, cands: tuple[str, ...]
) -> Rule | None:
    """A deny or ask rule matching any reading of the path."""
    # Many rules share a root: each path is made relative to a root once, not once per rule.
    rels: dict[tuple[str, str], str | None] = {}
    for compiled in _cached(pc, access, behavior):
        for c in cands:
            key = (compiled.root, c)
            if key in rels:
                rel = rels[key]
            else:
                rel = rels[key] = relative_to_root(compiled.root, c)
            if rel is not None and rel_matches(compiled, rel):
                return compiled.rule
    return None


def allow_match(pc: PermissionContext, access: Access, cands: tuple[str, ...]) -> Rule | None:
    """An allow rule for every reading of the path (a link and its target), or None."""
    rules = _cached(pc, access, "allow")
    found: Rule | None = None
    for c in cands:
        hit = next((r for r in rules if compiled_matches(r, c)), None)
        if hit is None:
            return None
        found = found or hit.rule
    return found


def deny_for(pc: PermissionContext, access: Access, cands: tuple[str, ...]) -> Rule | None:
    return first_match(pc, "deny", access, cands) or hard_link_deny(pc, access, cands)


_GLOB = re.compile(r"[*?\[]")
_WALK_LIMIT = 2000  # files looked at below one rule's folder (`secrets/**`)


def hard_link_deny(pc: PermissionContext, access: Access, cands: tuple[str, ...]) -> Rule | None:
    """A deny rule matching the file a hard link (`ln .env x`) is another name of: a file with
    more than one link is compared, by (st_dev, st_ino), with the existing files the deny rules
    name (a concrete path, or every file below the folder of `DIR/**`)."""
    linked = set()
    for c in cands:
        try:
            st = os.stat(c)
        except (OSError, ValueError):
            continue
        if st.st_nlink > 1 and stat.S_ISREG(st.st_mode):
            linked.add((st.st_dev, st.st_ino))
    if not linked:
        return None  # the common case: one name per file, no stat of the rules' files
    for compiled in _cached(pc, access, "deny"):
        for path in _rule_files(compiled):
            if not compiled_matches(compiled, path):
                continue
            try:
                st = os.stat(path)
            except (OSError, ValueError):
                continue
            if (st.st_dev, st.st_ino) in linked:
                return compiled.rule
    return None


def _rule_files(compiled: CompiledPathRule) -> list[str]:
    pattern = compiled.pattern.lstrip("/")
    if not _GLOB.search(pattern):
        return [os.path.join(compiled.root, pattern)]
    literal = _GLOB.split(pattern, maxsplit=1)[0]
    folder = os.path.join(compiled.root, literal.rsplit("/", 1)[0] if "/" in literal else "")
    if folder.rstrip("/") == compiled.root.rstrip("/") and not pattern.startswith("**"):
        # `*.pem` at the root: the root's own files (not the whole tree).
        try:
            return [os.path.join(folder, n) for n in os.listdir(folder)][:_WALK_LIMIT]
        except OSError:
            return []
    out: list[str] = []
    for base, _dirs, files in os.walk(folder):
        out += [os.path.join(base, f) for f in files]
        if len(out) > _WALK_LIMIT:
            break
    return out


def ask_for(pc: PermissionContext, access: Access, cands: tuple[str, ...]) -> Rule | None:
    return first_match(pc, "ask", access, cands)


def deny_below(pc: PermissionContext, folder: str) -> Rule | None:
    """A Read deny rule that could match some file below `folder` (for commands that read a whole
    tree, like `grep -r`). Errs towards finding one: a pattern that floats (`.env`, `*.pem`) matches
    at any depth, an anchored one is compared on its literal start."""
    for compiled in _cached(pc, "read", "deny"):
        root = compiled.root
        if root == folder or root.startswith(folder.rstrip("/") + "/") or folder == "/":
            return compiled.rule
        rel = relative_to_root(root, folder)
        if rel is None:
            continue
        pattern = compiled.pattern
        if not pattern.startswith("/") and "/" not in pattern.rstrip("/"):
            return compiled.rule
        literal = re.split(r"[*?\[]", pattern.lstrip("/"), maxsplit=1)[0]
        start = "" if rel == "." else rel + "/"
        if literal.startswith(start) or start.startswith(literal):
            return compiled.rule
    return None
