"""Whether git tracks a project's "local" settings file: then the repository ships it.

`.lathe/settings.local.toml` and `.claude/settings.local.json` are the user's own by name only: a
repository can commit them (`git add -f`), and a cloned one then hands its allow rules, mode, env
and hook switch to every session as if the user had written them (perm-r10 F1). A local file git
tracks -- in the index or in HEAD -- is judged as the checked-in project files are. git is run with
the repository's config that can execute disarmed (fsmonitor), no pager, no prompt, and without
the caller's GIT_* variables; when git cannot answer inside a repository the file counts as
tracked (fail closed).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_OPTIONAL_LOCKS="0",
               GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", PAGER="cat",
               GIT_LITERAL_PATHSPECS="1", LC_ALL="C", LANGUAGE="C")  # fmt: skip
    cmd = ["git", "--no-pager", "-c", "core.fsmonitor=false", *args]
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=3,
                              stdin=subprocess.DEVNULL)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None


def _in_repository(folder: Path) -> bool:
    """Whether `folder` or a folder above it holds a `.git` (a folder or a gitfile)."""
    here = Path(os.path.abspath(folder))
    return any(os.path.lexists(d / ".git") for d in (here, *here.parents))


def _names(project: Path, path: Path) -> list[str] | None:
    """The project-relative names under which git may hold `path`: as written, every link on the
    way to it (`.claude -> conf` ships `conf/settings.local.json` under another name), and where
    it really is. None: `path` is not inside the project."""
    root = Path(os.path.abspath(project))
    try:
        rel = Path(os.path.abspath(path)).relative_to(root)
    except ValueError:
        return None
    names = [rel.as_posix()]
    here = root
    for part in rel.parts:
        here = here / part
        if here.is_symlink():
            names.append(here.relative_to(root).as_posix())
    real_root = Path(os.path.realpath(root))
    try:
        names.append(Path(os.path.realpath(path)).relative_to(real_root).as_posix())
    except ValueError:
        pass  # a link to a file outside the project: the link itself is named above
    return list(dict.fromkeys(names))


def git_tracks(project: Path, path: Path) -> bool:
    """Whether git tracks `path` (a file inside `project`) in the index or in HEAD, under its
    own name, a link on its way or its real place."""
    if not _in_repository(project):
        return False
    names = _names(project, path)
    if names is None:
        return True  # not inside the project: nobody can say it is the user's
    index = _git(project, "ls-files", "-z", "--", *names)
    if index is not None and index.returncode != 0 and b"not a git repository" in index.stderr:
        return False  # a `.git` git does not take for a repository tracks nothing
    if index is None or index.returncode != 0:
        return True  # e.g. a broken index, a repository git refuses (safe.directory)
    if index.stdout.strip(b"\0"):
        return True
    head = _git(project, "ls-tree", "-z", "--name-only", "HEAD", "--", *names)
    if head is not None and head.returncode == 0:
        return bool(head.stdout.strip(b"\0"))
    # No HEAD yet (a repository with no commit) tracks nothing in HEAD; any other failure fails
    # closed.
    born = _git(project, "rev-parse", "-q", "--verify", "HEAD")
    return born is None or born.returncode != 1
