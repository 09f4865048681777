"""`@path` in a prompt: the file goes with the prompt as if the model had called Read.

`@file` attaches the file's content (through the Read tool, so its limits and read-state apply),
`@folder/` a listing, `@"a b.txt"` a path with spaces. An `@` that names no existing file stays
plain text (e-mail addresses, decorators). A file a Read deny rule covers is not attached, and
a notice says so. The blocks follow Claude Code's: a reminder that Read was called with the
input, then a reminder with its result.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.commands.ports import CommandSession

MAX_LISTING = 200
_MENTION = re.compile(r'(?:^|(?<=[\s(\[{,;]))@(?:"([^"]+)"|((?:[^\s"\\]|\\ )+))')


@dataclass
class Attachments:
    blocks: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)


def mention_paths(text: str, cwd: Path) -> list[Path]:
    """Existing files and folders named by `@...` in `text`, each once, in order."""
    out: list[Path] = []
    for match in _MENTION.finditer(text):
        raw = match.group(1) or match.group(2).replace("\\ ", " ")
        raw = raw.rstrip(".,;:!?)]}") if match.group(2) else raw
        if not raw:
            continue
        expanded = os.path.expanduser(raw)
        path = Path(expanded) if os.path.isabs(expanded) else cwd / expanded
        try:
            if not path.exists():
                continue
        except OSError:
            continue
        if path not in out:
            out.append(path)
    return out


def confine_checked_in(
    paths: list[Path], project: str, trusted: bool, name: str
) -> tuple[list[Path], list[str]]:
    """The `@` paths a checked-in command's or skill's body may attach: never a credential file
    or /proc (the memory guard's list), and in a folder nobody trusted nothing outside the
    project, as written or where its links lead (whoever wrote the repository chose them; the
    user only typed `/name`)."""
    from app.memory.guard import never_read_reason
    from app.permissions.paths import inside

    kept: list[Path] = []
    notices: list[str] = []
    roots = tuple({os.path.normpath(project), os.path.realpath(project)})
    for path in paths:
        why = never_read_reason(path)
        if not why and not trusted:
            forms = (os.path.normpath(os.path.abspath(path)), os.path.realpath(path))
            if not all(inside(f, roots) for f in forms):
                why = "it is outside the project and this folder is not trusted"
        if why:
            notices.append(f"/{name}: @{path} not attached: {why}")
            continue
        kept.append(path)
    return kept, notices


def reminder(text: str) -> dict[str, Any]:
    return {"type": "text", "text": f"<system-reminder>\n{text}\n</system-reminder>"}


def _listing(path: Path) -> str:
    try:
        names = sorted(
            (p.name + ("/" if p.is_dir() else "")) for p in path.iterdir() if p.name != ".git"
        )
    except OSError as exc:
        return f"(cannot list {path}: {exc})"
    more = len(names) - MAX_LISTING
    shown = "\n".join(f"- {n}" for n in names[:MAX_LISTING])
    return shown + (f"\n... and {more} more" if more > 0 else "")


async def attach(paths: list[Path], session: CommandSession) -> Attachments:
    """Read each path with the session's Read tool, after its permission rules (deny wins)."""
    from tools.base import ToolError
    from tools.registry import find_tool

    out = Attachments()
    context = session.context
    read = find_tool(session.deps.tools, "Read")
    decider = session.deps.decider
    for path in paths:
        shown = str(path)
        is_dir = path.is_dir()
        raw = {"file_path": shown}
        if read is None:
            out.notices.append(f"@{shown} not attached: the Read tool is not available")
            continue
        try:
            parsed = read.parse_input(raw)
            decision = await decider.decide(read, parsed, raw, context)
        except Exception as exc:  # fail closed: an unparsable check attaches nothing
            out.notices.append(f"@{shown} not attached: {exc}")
            continue
        if decision.behavior == "deny":
            out.notices.append(f"@{shown} not attached: reading it is denied ({decision.message})")
            continue
        if is_dir:
            out.blocks.append(reminder(f"Listed directory {shown}:\n{_listing(path)}"))
            out.paths.append(path)
            continue
        try:
            valid = await read.validate_input(parsed, context)
            if not valid.ok:
                out.notices.append(f"@{shown} not attached: {valid.message}")
                continue
            result = await read.call(parsed, context, _no_nested_asks, {}, lambda p: None)
        except ToolError as exc:
            out.notices.append(f"@{shown} not attached: {exc}")
            continue
        content = read.to_result_content(result.data)
        out.blocks.append(
            reminder(
                "Called the Read tool with the following input: "
                + json.dumps(raw, ensure_ascii=False, separators=(",", ":"))
            )
        )
        if isinstance(content, str):
            out.blocks.append(reminder(f"Result of calling the Read tool:\n{content}"))
        else:  # an image or a PDF: its blocks go as they are
            out.blocks.append(reminder("Result of calling the Read tool:"))
            out.blocks.extend(content)
        out.paths.append(path)
    return out


async def _no_nested_asks(*args: Any, **kwargs: Any) -> Any:
    from tools.decisions import PermissionDecision

    return PermissionDecision.deny("no nested permission requests while attaching a file")
