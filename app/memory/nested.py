"""Memory that loads when the model works somewhere: subfolder CLAUDE.md files and `paths:` rules.

After a Read, Edit or Write of a file, the CLAUDE.md (and .claude/CLAUDE.md, CLAUDE.local.md)
files of its folders below the session's start folder, and the conditional rules whose globs
match it, go with that tool result as a system-reminder, each once per session, as Claude Code's
nested memory does. Files loaded at startup are never attached again.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from app.memory.files import ConditionalRule, LoadedMemory, add_file
from tools.base import Tool

_NAMES = ("CLAUDE.md", os.path.join(".claude", "CLAUDE.md"), "CLAUDE.local.md")


def glob_matches(pattern: str, rel: str) -> bool:
    """Claude Code's globs: `**` spans folders, `*` does not, `{a,b}` alternates."""
    if "{" in pattern and "}" in pattern:
        head, _, rest = pattern.partition("{")
        options, _, tail = rest.partition("}")
        return any(glob_matches(head + o + tail, rel) for o in options.split(","))
    regex = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            regex += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            regex += ".*"
            i += 2
        elif pattern[i] == "*":
            regex += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            regex += "[^/]"
            i += 1
        else:
            regex += re.escape(pattern[i])
            i += 1
    return re.fullmatch(regex, rel) is not None


class NestedMemory:
    def __init__(
        self,
        start: Path,
        loaded: LoadedMemory,
        home: Path | None = None,
        subfolders: bool = True,
    ) -> None:
        self.start = start.resolve()
        # Subfolders' CLAUDE.md files are project memory: off when --setting-sources leaves the
        # project out (ext-r5 F8).
        self.subfolders = subfolders
        self.seen: set[Path] = set(loaded.seen)
        self.rules: list[ConditionalRule] = list(loaded.conditional)
        self.home = home or Path.home()
        self.refuse = loaded.refuse
        self.confine_to = loaded.confine_to
        # Others told of each file worked on (a `paths:` skill's announcement): (start, file)
        # -> whole text blocks to add to the tool results.
        self.watchers: list[Callable[[Path, Path], list[str]]] = []

    def reminders_for(self, file_path: str) -> list[str]:
        path = Path(file_path)
        if not path.is_absolute():
            path = self.start / path
        try:
            path = path.resolve()
            rel_dir = path.parent.relative_to(self.start)
        except (OSError, ValueError, RuntimeError):
            rel_dir = None
        out = LoadedMemory(seen=self.seen, refuse=self.refuse, confine_to=self.confine_to)
        if rel_dir is not None and self.subfolders:
            folder = self.start
            for part in rel_dir.parts:
                folder = folder / part
                for name in _NAMES:
                    add_file(out, folder / name, "project", self.home)
        texts = [f"Contents of {m.path} ({m.label}):\n\n{m.text.strip()}" for m in out.files]
        for rule in list(self.rules):
            try:
                rel = path.relative_to(rule.base.resolve()).as_posix()
            except ValueError:
                continue
            if any(glob_matches(g, rel) for g in rule.globs):
                self.rules.remove(rule)
                texts.append(
                    f"Contents of {rule.path} (project rule for {', '.join(rule.globs)}):\n\n{rule.text}"
                )
        return texts

    def reminder_blocks(
        self,
        tool_uses: Iterable[Mapping[str, Any]],
        find: Callable[[str], Tool[Any] | None],
    ) -> list[dict[str, Any]]:
        """`find`: the session's tool of a name; a call reaches nested memory when its tool
        declares that it touches a file (Tool.touches_file) and its input names one."""
        blocks: list[dict[str, Any]] = []
        for use in tool_uses:
            tool = find(str(use.get("name", "")))
            raw = use.get("input")
            target = (
                tool.touched_file(raw) if tool is not None and isinstance(raw, Mapping) else None
            )
            if target is None:
                continue
            for watch in self.watchers:
                touched = Path(target) if Path(target).is_absolute() else self.start / target
                try:
                    touched = touched.resolve()
                except (OSError, RuntimeError):
                    pass
                blocks.extend({"type": "text", "text": t} for t in watch(self.start, touched))
            for text in self.reminders_for(target):
                blocks.append(
                    {
                        "type": "text",
                        "text": "<system-reminder>\nInstructions for the files you are working "
                        f"on:\n\n{text}\n</system-reminder>",
                    }
                )
        return blocks
