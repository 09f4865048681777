"""Which files memory loading never reads, whatever a CLAUDE.md imports.

A project's CLAUDE.md is written by whoever wrote the repository: its `@path` imports must not
pull secrets into the system prompt (which goes to the API, and is shown by /context). Never read:
anything under /proc, /dev or /sys (`/proc/self/environ` holds lathe's API key; a device may
block forever), and well-known credential files (Claude Code's `.credentials.json`, `.netrc`,
`.git-credentials`, `.pgpass`, registry tokens such as `.npmrc` and `.pypirc`, `~/.claude.json`,
shell histories, ssh keys and the `.ssh`, `.gnupg`, `.aws`, `.azure`, `~/.config/gh`,
`~/.config/gcloud` folders). The session adds its Read deny rules on top
(`LoadedMemory.refuse`), as Claude Code skips imports a deny rule covers. That list is a floor:
in a folder nobody trusted, a project memory file reads nothing outside the project at all
(`LoadedMemory.confine_to`).
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

_SPECIAL_ROOTS = ("/proc", "/dev", "/sys")
_CREDENTIAL_FILES = frozenset(
    {
        ".credentials.json",
        ".netrc",
        "_netrc",
        ".git-credentials",
        ".pgpass",
        ".my.cnf",
        # Package registries' and tools' tokens, Claude Code's own state (its OAuth account).
        ".npmrc",
        ".yarnrc",
        ".yarnrc.yml",
        ".pypirc",
        ".claude.json",
        ".vault-token",
        ".boto",
        ".s3cfg",
        ".dockercfg",
        ".git-credential-cache",
        "credentials.toml",  # ~/.cargo/credentials.toml
        "application_default_credentials.json",
        "accessTokens.json",
        "msal_token_cache.json",
        # Shell and REPL histories: commands typed with secrets in them.
        ".bash_history",
        ".zsh_history",
        ".sh_history",
        ".history",
        ".python_history",
        ".node_repl_history",
        ".psql_history",
        ".mysql_history",
        ".sqlite_history",
        ".rediscli_history",
        ".lesshst",
        ".viminfo",
    }
)
_CREDENTIAL_DIRS = frozenset(
    {".ssh", ".gnupg", ".aws", ".kube", ".docker", ".azure", ".password-store", ".terraform.d"}
)
# Folders named by two parts (`~/.config/gh`): `gh` alone is too common a name.
_CREDENTIAL_SUBDIRS = frozenset(
    {
        (".config", "gh"),
        (".config", "hub"),
        (".config", "gcloud"),
        (".config", "op"),
        (".config", "doctl"),
        (".config", "heroku"),
        (".config", "netlify"),
        (".config", "vercel"),
        (".config", "configstore"),
        (".config", "rclone"),
        (".config", "lathe"),
        (".local", "state"),
        (".cargo", "credentials"),
        (".gem", "credentials"),
        (".composer", "auth.json"),
        (".m2", "settings.xml"),
        (".claude", ".credentials.json"),
    }
)


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
        if any(pair in _CREDENTIAL_SUBDIRS for pair in itertools.pairwise(parts)):
            return f"{form} is a credential file or inside a credential folder"
    return ""
