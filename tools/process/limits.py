"""The cap on what one command's output may take on disk.

`LATHE_BASH_MAX_OUTPUT_BYTES` (bytes, default 256 MiB) bounds each stream's spill file of a
foreground command (stdout and stderr separately) and each log file of a background shell. Output
past the cap is counted, not kept; the command itself runs on, and the result says so. Read at
each call, so a changed environment takes effect for the next command.
"""

from __future__ import annotations

import os

ENV = "LATHE_BASH_MAX_OUTPUT_BYTES"
DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024 * 1024


def max_output_bytes() -> int:
    try:
        value = int(os.environ.get(ENV, "") or DEFAULT_MAX_OUTPUT_BYTES)
    except ValueError:
        return DEFAULT_MAX_OUTPUT_BYTES
    return value if value > 0 else DEFAULT_MAX_OUTPUT_BYTES


def cap_note(cap: int, seen_chars: int, stream: str) -> str:
    """What the model reads when a stream's output went past the cap."""
    return (
        f"The {stream} output ({seen_chars} characters) went past the {_size(cap)} cap "
        f"({ENV}); only its first {_size(cap)} were kept. The command was not stopped."
    )


def _size(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"
