"""Walking a folder of Markdown definitions (commands, agents) as Claude Code walks them."""

from __future__ import annotations

import os
from pathlib import Path


def markdown_files(folder: Path) -> list[Path]:
    """The `*.md` files under `folder`, sorted, through symlinked sub-folders too (Claude Code
    2.1.332 loads `~/.claude/commands/shared -> ~/dotfiles/team` as `/shared:NAME`, measured in
    ext-r3 F2); a link back to a folder already on the way down (`loop -> ..`) is not followed,
    nor is a folder reached twice. Raises OSError when `folder` cannot be read."""
    if not folder.is_dir():
        return []
    found: list[Path] = []
    seen: set[str] = set()
    errors: list[OSError] = []

    def fail(exc: OSError) -> None:
        errors.append(exc)

    for top, dirs, names in os.walk(folder, followlinks=True, onerror=fail):
        here = os.path.realpath(top)
        if here in seen:
            dirs[:] = []
            continue
        seen.add(here)
        kept = []
        for d in dirs:
            real = os.path.realpath(os.path.join(top, d))
            # A link to this folder or one above it would walk forever.
            if real in seen or here == real or here.startswith(real.rstrip(os.sep) + os.sep):
                continue
            kept.append(d)
        dirs[:] = kept
        found.extend(Path(top) / n for n in names if n.endswith(".md"))
    if errors and not found and errors[0].filename == os.fspath(folder):
        raise errors[0]
    return sorted(found)
