"""A project's own skill, command, agent and agent-memory files must be the project's text.

A repository can check in `.claude/skills/a/SKILL.md -> ~/.ssh/id_rsa` (or a linked skill folder,
a command or agent file linked to `~/.netrc`): loading it puts the outside file into the system
prompt's listing and the conversation, while Read and `cat` of the same file are refused as
outside the working folders (perm-r10 F3). In a folder nobody trusted such a file is skipped with
a warning, as a project memory file that links outside is (app/memory/files.py). The user's own
folders (`~/.claude/skills` and the like) are not the repository's and are not confined.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from app.permissions.trust import is_trusted


def linked_outside(path: Path, root: Path) -> str:
    """Why `path` (a project file) is not read: it, or a folder on its way, is a link whose real
    place is outside the project `root`; "" when it is inside."""
    try:
        real = Path(os.path.realpath(path))
        real_root = Path(os.path.realpath(root))
    except (OSError, ValueError, RuntimeError):
        return "its links cannot be followed"
    if real == real_root or real_root in real.parents:
        return ""
    return (
        f"it links to {real}, outside the project, and a project's files reach outside it only "
        "in a trusted folder"
    )


class ProjectConfinement:
    """Whether a project's files are confined to it: the folder is not trusted."""

    def __init__(self, root: Path, env: Mapping[str, str] | None = None) -> None:
        self.root = root
        self.confined = not is_trusted(root, env)

    def refusal(self, path: Path) -> str:
        return linked_outside(path, self.root) if self.confined else ""
