"""Path rules against a path: deny needs any reading of the path, allow needs every reading."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from app.config.rules import Rule, path_rule_tools
from app.permissions.context import PermissionContext
from app.permissions.identity import denied_files, identity
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


def hard_link_deny(pc: PermissionContext, access: Access, cands: tuple[str, ...]) -> Rule | None:
    """A deny rule matching the file a hard link (`ln .env x`) is another name of: a file with
    more than one link is compared, by (st_dev, st_ino), with the existing files the deny rules
    name (app/permissions/identity.py); when those could not all be listed, it is denied."""
    linked = set()
    for c in cands:
        found = identity(c)
        if found is not None and found[1] > 1:
            linked.add(found[0])
    if not linked:
        return None  # the common case: one name per file, no listing of the rules' files
    denied = denied_files(_cached(pc, access, "deny"))
    for ident in linked:
        hit = denied.by_id.get(ident)
        if hit is not None:
            return hit[0]
    return denied.incomplete


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
