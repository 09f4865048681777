"""Programs that follow symbolic links while they walk a tree (`grep -R`, `rg -L`, `find -L`,
`ls -RL`, `du -L`, `tree -l`, `tar -h`, `cp -rL`, `rsync -L`, `chmod -RL`, `zip -r`, `diff -r`).

The working-folder check resolves the paths a command names, but such a program also reads what
the links it meets below them point to: a repository that ships `vendor -> ~/.ssh` makes
`grep -R KEY .` print the user's key. So a link-following walk counts as reading inside the
working folders only when no link below its folders leads outside them or into a Read-denied
path; the walk is bounded and fails closed past the bound. Programs that do not follow links
found while walking (GNU `grep -r` follows only command-line links, `ls -R`, `du`, `find`, `cp -r`
and `rsync -a` store links) need no walk: their command-line paths are resolved already.
"""

from __future__ import annotations

import os

from app.permissions.context import PermissionContext
from app.permissions.identity import WALK_LIMIT
from app.permissions.pathcheck import deny_for
from app.permissions.paths import inside

# program -> (options that make it follow links met while walking, options that make it walk;
# None: it always walks). A follow entry of None: it follows by default, unless one of
# _NO_FOLLOW's options is given.
_WALKERS: dict[str, tuple[tuple[str, ...] | None, tuple[str, ...] | None]] = {
    "grep": (("-R", "--dereference-recursive"), None),
    "egrep": (("-R", "--dereference-recursive"), None),
    "fgrep": (("-R", "--dereference-recursive"), None),
    "rgrep": (("-R", "--dereference-recursive"), None),
    "rg": (("-L", "--follow"), None),
    "fd": (("-L", "--follow"), None),
    "fdfind": (("-L", "--follow"), None),
    "ag": (("-f", "--follow"), None),
    "ack": (("--follow",), None),
    "find": (("-L", "-follow"), None),
    "ls": (("-L", "--dereference"), ("-R", "--recursive")),
    "du": (("-L", "--dereference"), None),
    "tree": (("-l",), None),
    "tar": (("-h", "--dereference"), None),
    "gtar": (("-h", "--dereference"), None),
    "bsdtar": (("-L",), None),
    "cp": (("-L", "--dereference"), ("-r", "-R", "--recursive", "-a", "--archive")),
    "rsync": (("-L", "--copy-links", "--copy-unsafe-links", "-k", "--copy-dirlinks"), None),
    "chmod": (("-L",), ("-R", "--recursive")),
    "chown": (("-L",), ("-R", "--recursive")),
    "chgrp": (("-L",), ("-R", "--recursive")),
    "zip": (None, ("-r", "--recurse-paths", "-R", "--recurse-patterns")),
    "diff": (None, ("-r", "--recursive")),
    "scp": (None, ("-r",)),
}
_NO_FOLLOW = {"zip": ("-y", "--symlinks"), "diff": ("--no-dereference",)}


def _given(words: tuple[str, ...], opts: tuple[str, ...]) -> bool:
    """Whether any of `opts` is among the options: alone, in a cluster of short options
    (`-rL`), or as a long option abbreviated as getopt accepts it (`--deref`)."""
    shorts = {o[1] for o in opts if len(o) == 2}
    longs = [o for o in opts if o.startswith("--") or len(o) > 2]
    for i, w in enumerate(words[1:], start=1):
        if w == "--":
            break
        key = w.split("=", 1)[0]
        if key in opts:
            return True
        if w.startswith("--") and len(key) > 3 and any(o.startswith(key) for o in longs):
            return True
        if w.startswith("-") and not w.startswith("--") and shorts & set(w[1:]):
            return True
        if i == 1 and words[0] in ("tar", "gtar") and not w.startswith("-") and "h" in w:
            return True  # `tar chf out.tar .`: the old option style has no dash
    return False


def follows_while_walking(words: tuple[str, ...]) -> bool:
    """Whether this call walks a tree and follows the symbolic links it meets there."""
    if not words:
        return False
    name = os.path.basename(words[0])
    spec = _WALKERS.get(name)
    if spec is None:
        return False
    follow, walk = spec
    if walk is not None and not _given(words, walk):
        return False
    if follow is None:
        return not _given(words, _NO_FOLLOW.get(name, ()))
    return _given(words, follow)


def link_escape(folder: str, pc: PermissionContext, dirs: tuple[str, ...]) -> str:
    """Why walking `folder` and following every link below it reaches a path outside the
    working folders or one a Read deny rule protects, or ""."""
    root = os.path.realpath(folder)
    if not os.path.isdir(root):
        return ""
    real_dirs = dirs + tuple(os.path.realpath(d) for d in dirs)
    visited = {root}
    stack = [root]
    seen = 0
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > WALK_LIMIT:
                return (
                    f"follows symbolic links below {folder}, which holds more than {WALK_LIMIT} "
                    "entries: too many to check that none leads outside the working folders"
                )
            if entry.is_symlink():
                real = os.path.realpath(entry.path)
                if not inside(real, real_dirs):
                    return (
                        f"follows {entry.path}, a symbolic link to {real}, outside the working "
                        "folders"
                    )
                rule = deny_for(pc, "read", (real, real.rstrip("/") + "/x"))
                if rule is not None:
                    return (
                        f"follows {entry.path}, a symbolic link to {real}, which "
                        f"{rule.display()} from {rule.source} denies"
                    )
                if os.path.isdir(real) and real not in visited:
                    visited.add(real)
                    stack.append(real)
            elif entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
    return ""
