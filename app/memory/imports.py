"""`@path` imports inside memory files, as Claude Code resolves them.

A path is relative to the importing file, or `~/...`, or absolute. Imports inside code spans or
fenced code blocks are text, not imports. Imports nest 4 deep (CLAUDE.md -> a -> b -> c -> d:
Claude Code 2.1.332 loads d, not what d imports; measured, ext-r3 F4, though its docs say 5); a
file already loaded (a cycle, or imported twice) is not loaded again; a missing file is ignored,
as in Claude Code.
"""

from __future__ import annotations

import re
from pathlib import Path

MAX_IMPORT_DEPTH = 4

# `@` at the start or after whitespace, then a path up to whitespace; `\ ` escapes a space.
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def _outside_code(text: str) -> str:
    """The text with fenced blocks and code spans blanked, so their @s are never imports."""
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        marker = _FENCE.match(line)
        if fence is not None:
            if marker and marker.group(1) == fence:
                fence = None
            out.append("")
            continue
        if marker:
            fence = marker.group(1)
            out.append("")
            continue
        out.append(_CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line))
    return "\n".join(out)


def import_paths(text: str, base: Path, home: Path) -> list[Path]:
    """The files `text` (of a file in folder `base`) imports, in order of appearance."""
    found: list[Path] = []
    for match in _IMPORT.finditer(_outside_code(text)):
        raw = match.group(1).replace("\\ ", " ").rstrip(".,;:)")
        if not raw or raw.startswith("@") or "@" in raw.split("/")[0][1:]:
            continue  # `@@x`, or an e-mail-like token
        if raw.startswith("~/"):
            path = home / raw[2:]
        elif raw.startswith("/"):
            path = Path(raw)
        elif re.match(r"^[A-Za-z0-9._-]", raw):
            path = base / raw
        else:
            continue
        found.append(path)
    return found
