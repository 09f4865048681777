"""Repositories inside the project's repository that `git status` and `git diff` recurse into.

A gitlink (an index entry of mode 160000: a submodule, or an embedded clone added with `git add
lib`) makes git run `git status` in that folder, with that repository's config: its
`core.fsmonitor` runs. Its git dir is wherever the folder's `.git` says: a `.git` folder, or a
gitfile naming any path (`gitdir: ../.hidden`, made by `git clone --separate-git-dir`), not only
`.git/modules`. The index is read here (not asked of git, which would refresh it and run the
fsmonitor under check); a format this reader does not know counts as a risk.
"""

from __future__ import annotations

import os
import struct

_GITLINK = 0o160000
_MAX_INDEX = 256 * 1024 * 1024


def gitlink_paths(gitdir: str, hash_len: int = 20) -> list[str] | None:
    """The paths of the gitlinks in `gitdir`'s index ([] without an index), or None when the
    index cannot be read."""
    try:
        with open(os.path.join(gitdir, "index"), "rb") as fh:
            data = fh.read(_MAX_INDEX + 1)
    except FileNotFoundError:
        return []
    except OSError:
        return None
    if len(data) > _MAX_INDEX or len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    out: list[str] = []
    pos, prev = 12, b""
    fixed = 40 + hash_len  # stat data (40 bytes, the mode at 24) and the object id
    try:
        for _ in range(count):
            start = pos
            mode = struct.unpack(">I", data[pos + 24 : pos + 28])[0]
            flags = struct.unpack(">H", data[pos + fixed : pos + fixed + 2])[0]
            pos += fixed + 2
            if version >= 3 and flags & 0x4000:
                pos += 2  # extended flags
            if version == 4:
                strip, pos = _varint(data, pos)
                end = data.index(b"\0", pos)
                path = prev[: len(prev) - strip] + data[pos:end]
                pos = end + 1
            else:
                end = data.index(b"\0", pos)
                path = data[pos:end]
                pos = start + ((end - start) // 8 + 1) * 8  # NUL-padded to a multiple of 8
            prev = path
            if mode & 0o170000 == _GITLINK:
                out.append(path.decode("utf-8", "surrogateescape"))
    except (struct.error, ValueError, IndexError):
        return None
    return out


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset encoding (varint.c): 7 bits a byte, each continuation adding one."""
    byte = data[pos]
    value = byte & 0x7F
    pos += 1
    while byte & 0x80:
        byte = data[pos]
        value = ((value + 1) << 7) | (byte & 0x7F)
        pos += 1
    return value, pos


def nested_git_dirs(root: str, gitdir: str, depth: int = 0) -> list[str] | None:
    """The git dirs of every repository a gitlink of `root` (work tree) / `gitdir` leads to, their
    own gitlinks included; None when an index or a gitfile cannot be read."""
    hash_len = 32 if _sha256(gitdir) else 20
    links = gitlink_paths(gitdir, hash_len)
    if links is None:
        return None
    out: list[str] = []
    for rel in links:
        folder = os.path.join(root, rel)
        dot_git = os.path.join(folder, ".git")
        if os.path.isdir(dot_git):
            sub = dot_git
        elif os.path.lexists(dot_git):
            sub_dir = _gitfile_target(dot_git, folder)
            if sub_dir is None:
                return None
            sub = sub_dir
        else:
            continue  # not checked out: nothing runs in it (its .git/modules dir is walked)
        out.append(sub)
        if depth < 3:
            deeper = nested_git_dirs(folder, sub, depth + 1)
            if deeper is None:
                return None
            out += deeper
    return out


def _gitfile_target(dot_git: str, folder: str) -> str | None:
    try:
        with open(dot_git, encoding="utf-8") as fh:
            line = fh.readline(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir:"):
        return None
    return os.path.normpath(os.path.join(folder, line[len("gitdir:") :].strip()))


def _sha256(gitdir: str) -> bool:
    try:
        with open(os.path.join(gitdir, "config"), "rb") as fh:
            return b"sha256" in fh.read(1024 * 1024).lower()
    except OSError:
        return False


def looks_like_git_dir(path: str) -> bool:
    """A folder git would take for a repository's git dir (HEAD, objects and refs or config)."""
    return (
        os.path.isfile(os.path.join(path, "HEAD"))
        and os.path.isdir(os.path.join(path, "objects"))
        and (
            os.path.isdir(os.path.join(path, "refs"))
            or os.path.isfile(os.path.join(path, "config"))
        )
    )
