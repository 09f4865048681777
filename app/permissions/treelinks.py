"""Commands that read a whole tree (`grep -r`, `rg`, `cp -r`, `tar c`, `zip -r`): every file below
their folder operands is read, under whatever name it has there.

A Read deny rule names paths, so a folder can hold a denied file under a name no rule matches: a
hard link (the same inode; app/permissions/identity.py knows the denied files' inodes) or, for a
reader that follows symbolic links (`grep -R`, `rg -L`, `zip`, `cp -rL`), a symbolic link to a
denied file or into a denied folder. The walk looks for both; a copier also has every path it
copies checked against the rules (`cp -r sub out` copies `sub/.env` to a name no rule names).
Hard links are only looked for when some denied file has other names (st_nlink > 1), so the
common case stats nothing. The walk is bounded: past the bound it fails closed.
"""

from __future__ import annotations

import os

from app.permissions.context import PermissionContext
from app.permissions.identity import WALK_LIMIT, denied_files
from app.permissions.pathcheck import _cached, deny_for, first_match

# Readers of a tree, and the options that make them follow symbolic links inside it (None: they
# follow by default; `skip` options make them store links instead).
_GREPS = {"grep": ("-R", "--dereference-recursive"), "egrep": ("-R", "--dereference-recursive"),
          "fgrep": ("-R", "--dereference-recursive"), "rg": ("-L", "--follow"),
          "diff": None}  # fmt: skip
COPIERS = {"cp": ("-L", "--dereference"), "mv": (), "rsync": ("-L", "--copy-links"),
           "tar": ("-h", "--dereference"), "gtar": ("-h", "--dereference"),
           "bsdtar": ("-L",), "pax": ("-L",), "scp": None, "zip": None, "jar": None,
           "7z": None, "7za": None, "rar": None}  # fmt: skip
_STORES_LINKS = {"zip": ("-y", "--symlinks"), "7z": ("-snl",), "7za": ("-snl",),
                 "diff": ("--no-dereference",)}  # fmt: skip


def follows_links(words: tuple[str, ...]) -> bool:
    name = words[0]
    opts = _GREPS.get(name, COPIERS.get(name, ()))
    if opts is None:
        skip = _STORES_LINKS.get(name, ())
        return not any(w in skip for w in words[1:])
    for w in words[1:]:
        if w == "--":
            break
        if w in opts or (
            w.startswith("-")
            and not w.startswith("--")
            and any(o[1] in w[1:] for o in opts if len(o) == 2)
        ):
            return True
    return False


def tree_reason(folder: str, words: tuple[str, ...], pc: PermissionContext, copies: bool) -> str:
    """Why reading (or, `copies`, copying) every file below `folder` reaches a file a Read deny
    rule protects under a name it does not match, or ""."""
    if not os.path.isdir(folder):
        return ""
    rules = _cached(pc, "read", "deny")
    if not rules:
        return ""
    follows = follows_links(words)
    denied = denied_files(rules)
    look_for_links = bool(denied.linked) or denied.incomplete is not None
    inodes = {ino for _dev, ino in denied.linked}
    if not (look_for_links or follows or copies):
        return ""
    seen = 0
    visited = {os.path.realpath(folder)}
    # (folder, whether its files' paths must be checked: below a followed link their names are
    # not the ones the rules see, and a copier gives every file a new name)
    stack = [(folder, copies)]
    while stack:
        current, check_paths = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > WALK_LIMIT:
                return (
                    f"reads more than {WALK_LIMIT} entries below {folder}: too many to check for "
                    "links to files a Read deny rule protects"
                )
            path = entry.path
            if check_paths:
                rule = first_match(pc, "deny", "read", (path,))
                if rule is not None:
                    verb = "copies" if copies else "reads"
                    return f"{verb} {path}, which {rule.display()} from {rule.source} denies"
            if entry.is_symlink():
                if not follows:
                    continue
                real = os.path.realpath(path)
                rule = deny_for(pc, "read", (real, real.rstrip("/") + "/x"))
                if rule is not None:
                    return (
                        f"reads {path}, a symbolic link to {real}, which {rule.display()} from "
                        f"{rule.source} denies"
                    )
                if os.path.isdir(real) and real not in visited:
                    visited.add(real)
                    stack.append((real, True))
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append((path, check_paths))
                continue
            if not look_for_links or not entry.is_file(follow_symlinks=False):
                continue
            if denied.incomplete is None and entry.inode() not in inodes:
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            hit = denied.by_id.get((st.st_dev, st.st_ino))
            if hit is not None and path != hit[1]:
                return (
                    f"reads {path}, another name (a hard link) of {hit[1]}, which "
                    f"{hit[0].display()} from {hit[0].source} denies"
                )
            if hit is None and denied.incomplete is not None and st.st_nlink > 1:
                rule = denied.incomplete
                return (
                    f"reads {path}, a file with other names that may be one {rule.display()} "
                    "denies (its files are too many to list)"
                )
    return ""
