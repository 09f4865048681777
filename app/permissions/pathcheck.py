"""Path rules against a path: deny needs any reading of the path, allow needs every reading."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from app.permissions.context import PermissionContext
from app.permissions.matching import path_matches
from app.permissions.rules import EDIT_TOOLS, READ_TOOLS, Rule

Access = Literal["read", "write"]


def _families(access: Access, behavior: str) -> frozenset[str]:
    if access == "read":
        return READ_TOOLS
    # A Read deny also blocks writing the same path: what may not be seen may not be changed.
    return EDIT_TOOLS | READ_TOOLS if behavior == "deny" else EDIT_TOOLS


def _path_rules(rules: Iterable[Rule], access: Access, behavior: str) -> list[Rule]:
    fams = _families(access, behavior)
    return [r for r in rules if r.specifier is not None and r.tool in fams]


def _cached(pc: PermissionContext, access: Access, behavior: str) -> list[Rule]:
    """The path rules of one behavior and access, filtered once per context snapshot."""
    cache: dict[tuple[str, str], list[Rule]] | None = pc.__dict__.get("_path_index")
    if cache is None:
        cache = {}
        object.__setattr__(pc, "_path_index", cache)
    key = (access, behavior)
    if key not in cache:
        rules = {"allow": pc.allow, "deny": pc.deny, "ask": pc.ask}[behavior]
        cache[key] = _path_rules(rules, access, behavior)
    return cache[key]


def first_match(
    pc: PermissionContext, behavior: str, access: Access, cands: tuple[str, ...]
) -> Rule | None:
    """A deny or ask rule matching any reading of the path."""
    for rule in _cached(pc, access, behavior):
        for c in cands:
            if path_matches(rule, c, pc.project_dir, pc.home):
                return rule
    return None


def allow_match(pc: PermissionContext, access: Access, cands: tuple[str, ...]) -> Rule | None:
    """An allow rule for every reading of the path (a link and its target), or None."""
    rules = _cached(pc, access, "allow")
    found: Rule | None = None
    for c in cands:
        hit = next((r for r in rules if path_matches(r, c, pc.project_dir, pc.home)), None)
        if hit is None:
            return None
        found = found or hit
    return found


def deny_for(pc: PermissionContext, access: Access, cands: tuple[str, ...]) -> Rule | None:
    return first_match(pc, "deny", access, cands)


def ask_for(pc: PermissionContext, access: Access, cands: tuple[str, ...]) -> Rule | None:
    return first_match(pc, "ask", access, cands)
