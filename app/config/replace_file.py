"""Replace a settings file whole: a temporary file beside it, fsync, then rename over it.

The path itself is replaced (a symbolic link there is replaced, not written through: a project's
settings file linked to another file must not edit that file); the old file's mode is kept.
Shared by the rule writer (app/permissions/persist.py) and the UI choices (ui_settings.py).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def replace_file(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
