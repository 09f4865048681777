"""Which files memory loading never reads, whatever a CLAUDE.md imports.

A project's CLAUDE.md is written by whoever wrote the repository: its `@path` imports must not
pull secrets into the system prompt (which goes to the API, and is shown by /context). Never read:
anything under /proc, /dev or /sys (`/proc/self/environ` holds lathe's API key; a device may
block forever), and well-known credential files (Claude Code's `.credentials.json`, `.netrc`,
`.git-credentials`, `.pgpass`, ssh keys and the `.ssh`, `.gnupg`, `.aws` folders). The session
adds its Read deny rules on top (`LoadedMemory.refuse`), as Claude Code skips imports a deny rule
covers.
"""

from __future__ import annotations

import os
from pathlib import Path

_SPECIAL_ROOTS = ("/proc", "/dev", "/sys")
_CREDENTIAL_FILES = frozenset(
    {".credentials.json", ".netrc", "_netrc", ".git-credentials", ".pgpass", ".my.cnf"}
)
_CREDENTIAL_DIRS = frozenset({".ssh", ".gnupg", ".aws", ".kube", ".docker"})


def _special(path: str) -> bool:
    return any(path == root or path.startswith(root + "/") for root in _SPECIAL_ROOTS)


def never_read_reason(path: Path) -> str:
    """Why memory loading refuses `path` (as written or where its links lead), or ""."""
    logical = os.path.normpath(os.path.abspath(path))
    try:
        real = os.path.realpath(logical)
    except (OSError, ValueError, RuntimeError):
        return "its links cannot be followed"
    for form in (logical, real):
        if _special(form):
            return f"{form} is on a special file system (/proc, /dev, /sys)"
        parts = form.split("/")
        if parts[-1] in _CREDENTIAL_FILES:
            return f"{form} is a credential file"
        if any(part in _CREDENTIAL_DIRS for part in parts[:-1]):
            return f"{form} is inside a credential folder"
    return ""
