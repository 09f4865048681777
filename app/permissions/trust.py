"""Workspace trust records: which folders the user said they trust, in `$LATHE_STATE_DIR`.

Until a project is trusted its hooks and allow rules are ignored (deny and ask rules still apply).
Trusting a folder trusts everything below it.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app import jsonlimits
from app.config.paths import state_dir

TRUST_FILE = "trust.json"


def trust_file(env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / TRUST_FILE


def _read(path: Path) -> dict[str, Any]:
    try:
        data = jsonlimits.loads(path.read_text(encoding="utf-8"), str(path))
    except (OSError, ValueError):
        return {}
    trusted = data.get("trusted") if isinstance(data, dict) else None
    return trusted if isinstance(trusted, dict) else {}


def is_trusted(folder: str | Path, env: Mapping[str, str] | None = None) -> bool:
    records = _read(trust_file(env))
    path = Path(os.path.realpath(folder))
    for folder in (path, *path.parents):
        record = records.get(str(folder))
        if isinstance(record, dict):
            # The nearest record decides: distrusting a subfolder of a trusted folder works.
            return bool(record.get("trusted"))
    return False


def set_trusted(
    folder: str | Path, trusted: bool = True, env: Mapping[str, str] | None = None
) -> None:
    """Record the user's answer (atomically: a crash never leaves half a file)."""
    path = trust_file(env)
    records = _read(path)
    records[os.path.realpath(folder)] = {"trusted": trusted, "at": int(time.time())}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".trust-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"trusted": records}, fh, indent=2, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
