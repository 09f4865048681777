"""String-only checks on file paths, safe to run before the user has approved any I/O."""

from __future__ import annotations

import os
import re
from pathlib import Path

# Image formats the Messages API accepts as image blocks.
IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})

# Extensions whose content is not text: reading them as lines would feed the model noise.
BINARY_EXTENSIONS = frozenset(
    {
        # archives and compressed
        ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".lz", ".lzma",
        ".jar", ".war", ".ear", ".whl", ".egg", ".deb", ".rpm", ".dmg", ".iso", ".img", ".apk",
        # executables and objects
        ".exe", ".dll", ".so", ".dylib", ".o", ".a", ".obj", ".lib", ".bin", ".elf", ".class",
        ".pyc", ".pyo", ".pyd", ".wasm", ".node",
        # media (images the API cannot take, audio, video)
        ".bmp", ".ico", ".tif", ".tiff", ".psd", ".heic", ".avif", ".raw",
        ".mp3", ".wav", ".flac", ".ogg", ".aac", ".m4a", ".wma",
        ".mp4", ".mkv", ".avi", ".mov", ".wmv", ".webm", ".flv", ".m4v",
        # fonts
        ".ttf", ".otf", ".woff", ".woff2", ".eot",
        # documents in binary containers
        ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp",
        # data stores
        ".sqlite", ".sqlite3", ".db", ".mdb", ".dat", ".pkl", ".pickle", ".npy", ".npz",
        ".parquet", ".feather", ".h5", ".hdf5", ".pt", ".pth", ".onnx", ".safetensors",
    }
)  # fmt: skip

# Device files that never end or that block waiting for input: reading them hangs the tool.
_BLOCKING_DEVICES = frozenset(
    {
        "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full", "/dev/stdin", "/dev/stdout",
        "/dev/stderr", "/dev/tty", "/dev/console", "/dev/ptmx", "/dev/fd/0", "/dev/fd/1",
        "/dev/fd/2",
    }
)  # fmt: skip
_PROC_FD = re.compile(r"^/proc/(self|thread-self|\d+)/fd/[0-2]$")


def kernel_normpath(path: str) -> str:
    """An absolute path with `.` and `..` removed the way the kernel resolves them: a `..` after a
    symlink leaves the link's target, not the link (`a/link/../x` is the target's parent's `x`).
    Links elsewhere stay as written, so rules still see the names the model used. Text-only
    `os.path.normpath` folds `a/link/..` to `a`, which escapes deny rules and working folders."""
    if ".." not in path.split("/"):
        return os.path.normpath(path)
    current = "/"
    for comp in path.split("/"):
        if comp in ("", "."):
            continue
        if comp == "..":
            try:
                current = os.path.dirname(os.path.realpath(current))
            except (OSError, ValueError):
                current = os.path.dirname(current)
        else:
            current = os.path.join(current, comp)
    return current


def is_unc_path(path: str) -> bool:
    r"""`\\host\share` or `//host/share`: opening one sends the user's credentials to that host."""
    return path.startswith("\\\\") or (path.startswith("//") and not path.startswith("///"))


def is_blocking_device(path: str) -> bool:
    norm = os.path.normpath(path)
    return norm in _BLOCKING_DEVICES or bool(_PROC_FD.match(norm))


def extension(path: str) -> str:
    return Path(path).suffix.lower()


def is_image(path: str) -> bool:
    return extension(path) in IMAGE_EXTENSIONS


def is_pdf(path: str) -> bool:
    return extension(path) == ".pdf"


def is_notebook(path: str) -> bool:
    return extension(path) == ".ipynb"


def is_binary_extension(path: str) -> bool:
    return extension(path) in BINARY_EXTENSIONS


def missing_file_message(path: str, cwd: str) -> str:
    """The message for a path that does not exist, with a near miss when one is close by."""
    message = f"File does not exist. Note: your current working directory is {cwd}."
    hint = similar_file(path)
    if hint:
        message += f" Did you mean {hint}?"
    return message


def similar_file(path: str) -> str | None:
    """A sibling with the same name but another extension or case (`foo.ts` for `foo.js`)."""
    p = Path(path)
    parent = p.parent
    try:
        if not parent.is_dir():
            return None
        stem, name = p.stem.lower(), p.name.lower()
        candidates = sorted(
            entry.name
            for entry in os.scandir(parent)
            if entry.name.lower() == name or Path(entry.name).stem.lower() == stem
        )
    except OSError:
        return None
    for candidate in candidates:
        if candidate != p.name:
            return str(parent / candidate)
    return None
