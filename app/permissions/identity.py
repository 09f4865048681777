"""File identity for deny rules: a hard link (`ln .env x`) is the denied file under another name.

A path rule names paths, but the kernel opens inodes: a file with more than one link is the same
file under each of its names. The existing files each deny rule names are listed once (a concrete
path, or every file below the folder a glob starts in; a pattern without a slash, like `.env` or
`*.pem`, matches at any depth, so its whole root is walked) and known by (st_dev, st_ino).

Listing is bounded: past the bound the rule's files are not all known, and the answer fails closed
(`incomplete`): every file with more than one link is then taken for one that rule may deny.
The listing is kept for a second per rule set: a search filtering thousands of results asks
once, and a file a deny rule names that appears later is seen a second later at most.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from app.config.rules import Rule
from app.permissions.matching import CompiledPathRule, compiled_matches

WALK_LIMIT = 20000  # entries looked at below one rule's folder
_TTL = 1.0
_GLOB = re.compile(r"[*?\[]")

Identity = tuple[int, int]


@dataclass
class DeniedFiles:
    """The existing files some deny rules name, by identity."""

    by_id: dict[Identity, tuple[Rule, str]] = field(default_factory=dict)
    # The subset with other names somewhere (st_nlink > 1): only they can be reached by a link.
    linked: dict[Identity, tuple[Rule, str]] = field(default_factory=dict)
    # A rule whose files could not all be listed (too many): fail closed on its behalf.
    incomplete: Rule | None = None


_cache: dict[tuple[tuple[str, str, str], ...], tuple[float, DeniedFiles]] = {}


def denied_files(rules: Sequence[CompiledPathRule]) -> DeniedFiles:
    # Keyed by the rules' content: a new context with the same rules shares the listing.
    key = tuple((r.root, r.pattern, r.rule.display()) for r in rules)
    now = time.monotonic()
    hit = _cache.get(key)
    if hit is not None and now - hit[0] < _TTL:
        return hit[1]
    found = DeniedFiles()
    for compiled in rules:
        files, complete = rule_files(compiled)
        if not complete and found.incomplete is None:
            found.incomplete = compiled.rule
        for path in files:
            if not compiled_matches(compiled, path):
                continue
            try:
                st = os.stat(path)
            except (OSError, ValueError):
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            ident = (st.st_dev, st.st_ino)
            found.by_id.setdefault(ident, (compiled.rule, path))
            if st.st_nlink > 1:
                found.linked.setdefault(ident, (compiled.rule, path))
    if len(_cache) > 64:
        _cache.clear()
    _cache[key] = (now, found)
    return found


def floats(pattern: str) -> bool:
    """gitignore: a pattern with no slash but a trailing one matches at any depth."""
    return "/" not in pattern.rstrip("/")


def rule_files(compiled: CompiledPathRule) -> tuple[list[str], bool]:
    """(the existing files that may match the rule, whether that list is complete)."""
    pattern = compiled.pattern
    if floats(pattern):
        return walk_files(compiled.root)
    pattern = pattern.lstrip("/")
    if not _GLOB.search(pattern):
        return [os.path.join(compiled.root, pattern)], True
    literal = _GLOB.split(pattern, maxsplit=1)[0]
    folder = os.path.join(compiled.root, literal.rsplit("/", 1)[0] if "/" in literal else "")
    if "/" not in pattern and "**" not in pattern:
        # `/*.pem`: the root's own files, not the whole tree.
        try:
            names = os.listdir(folder)
        except OSError:
            return [], True
        return [os.path.join(folder, n) for n in names[:WALK_LIMIT]], len(names) <= WALK_LIMIT
    return walk_files(folder)


def walk_files(folder: str) -> tuple[list[str], bool]:
    out: list[str] = []
    seen = 0
    for base, dirs, files in os.walk(folder):
        seen += len(dirs) + len(files)
        out += [os.path.join(base, f) for f in files]
        if seen > WALK_LIMIT:
            return out, False
    return out, True


def identity(path: str) -> tuple[Identity, int] | None:
    """((st_dev, st_ino), st_nlink) of a regular file, following links; None for anything else."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_dev, st.st_ino), st.st_nlink
