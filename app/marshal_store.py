"""One marshal file written whole or not at all: the store behind app/dataclass_code.py and
app/regex_code.py (compiled code kept beside the bytecode between starts)."""

from __future__ import annotations

import marshal
import os
from typing import Any


def dump_atomically(target: str, payload: Any) -> bool:
    """Write `payload` to `target` through a temporary file and a rename, so a reader never sees
    half a file; False (and no temporary left) when it cannot be written."""
    tmp = f"{target}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(tmp, "wb") as f:
            marshal.dump(payload, f)
        os.replace(tmp, target)
        return True
    except (OSError, ValueError):
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
