"""Which memory files a session loads, in Claude Code's order, with their imports.

Order (later files take precedence, as in Claude Code): user files (lathe's config folder
LATHE.md/CLAUDE.md/AGENTS.md, then `~/.claude/CLAUDE.md` or `$CLAUDE_CONFIG_DIR/CLAUDE.md`, then
the user rules `~/.claude/rules/*.md`), then for every folder from the file system root through
the project root down to the working directory (Claude Code reads the folders above the git root
too): LATHE.md, CLAUDE.md,
AGENTS.md, .claude/CLAUDE.md, .claude/rules/*.md without `paths:`; then CLAUDE.local.md of the
same folders. Each file is followed by the files it imports. Rules with a `paths:` glob list are
conditional: they are attached with a tool result when the model works on a matching file
(app/memory/nested.py). Unreadable files are skipped: a memory file never stops a session.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.memory.frontmatter import FrontmatterError, as_list, split_frontmatter
from app.memory.guard import never_read_reason
from app.memory.imports import MAX_IMPORT_DEPTH, import_paths

LATHE_NAMES = ("LATHE.md", "CLAUDE.md", "AGENTS.md")
# Claude Code 2.1.332 sends a memory file whole however long it is, and only says a long one
# "will impact performance" past 40k characters; lathe does the same, and cuts only a file
# past a million characters (about 250k tokens: more than any model's window holds), saying so.
LARGE_MEMORY_CHARS = 40_000
MAX_MEMORY_CHARS = 1_000_000

# The memory block's first words: how /context tells the memory block from the rest of the system.
MEMORY_PREAMBLE = (
    "Codebase and user instructions are shown below. Be sure to adhere to these "
    "instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST "
    "follow them exactly as written."
)

KIND_LABELS = {
    "user": "user's private global instructions for all projects",
    "project": "project instructions, checked into the codebase",
    "local": "user's private project instructions, not checked in",
}


@dataclass(frozen=True)
class MemoryFile:
    path: Path
    text: str
    kind: str = "project"

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)


@dataclass(frozen=True)
class ConditionalRule:
    """A `.claude/rules/*.md` with `paths:`: loaded when a file matching a glob is worked on."""

    path: Path
    base: Path  # the globs are relative to the project folder that holds `.claude/rules`
    globs: tuple[str, ...]
    text: str


@dataclass
class LoadedMemory:
    files: list[MemoryFile] = field(default_factory=list)
    conditional: list[ConditionalRule] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seen: set[Path] = field(default_factory=set)
    # Why the session refuses to read a file (its Read deny rules), or "": the file is skipped.
    refuse: Callable[[Path], str] | None = None
    # The project of a folder nobody trusted: a memory file inside it is the repository's own
    # text, so what it imports (or links to) from outside the project is not read. Claude Code
    # loads no external import until the user approved them; lathe does in a trusted folder.
    confine_to: Path | None = None

    def outside_reason(self, path: Path) -> str:
        if self.confine_to is None:
            return ""
        try:
            real = Path(os.path.realpath(path))
            root = Path(os.path.realpath(self.confine_to))
        except (OSError, ValueError, RuntimeError):
            return "its links cannot be followed"
        if real == root or root in real.parents:
            return ""
        return (
            f"{real} is outside the project, and a project's memory files reach outside it "
            "only in a trusted folder"
        )

    def from_project(self, path: Path) -> bool:
        """Whether `path` (as written) is one of the confined project's own files."""
        if self.confine_to is None:
            return False
        logical = Path(os.path.normpath(os.path.abspath(path)))
        try:
            root = Path(os.path.normpath(os.path.abspath(self.confine_to)))
            real_root = Path(os.path.realpath(self.confine_to))
        except (OSError, ValueError):
            return True
        return any(r == logical or r in logical.parents for r in (root, real_root))

    def refusal(self, path: Path) -> str:
        reason = never_read_reason(path)
        if not reason and self.refuse is not None:
            try:
                reason = self.refuse(path)
            except Exception as exc:  # a broken check must not become a read
                reason = f"the permission check failed ({type(exc).__name__})"
        return reason


def claude_user_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`: where Claude Code keeps user-scope files."""
    e = os.environ if env is None else env
    if e.get("CLAUDE_CONFIG_DIR"):
        return Path(e["CLAUDE_CONFIG_DIR"]).expanduser()
    home = e.get("HOME")
    return (Path(home) if home else Path.home()) / ".claude"


def read_memory_text(path: Path) -> str | None:
    try:
        if not path.is_file():
            return None
        # At most two characters past the cap are read (a BOM may go): a huge file costs no more than that.
        with path.open(encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_MEMORY_CHARS + 2)
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a NUL in the path
        return None
    text = text.removeprefix("\ufeff")  # a UTF-8 BOM: the frontmatter and a line-1 import count
    if len(text) > MAX_MEMORY_CHARS:
        text = text[:MAX_MEMORY_CHARS] + _cut_marker(path)
    return text


def memory_size_note(path: Path, text: str) -> str:
    """The warning for a long memory file (Claude Code's "Large ... will impact performance"),
    or for one cut at MAX_MEMORY_CHARS; "" for a file of ordinary size."""
    if text.endswith(_cut_marker(path)):
        return f"memory file {path} cut at {MAX_MEMORY_CHARS:,} characters: the rest is not sent"
    if len(text) > LARGE_MEMORY_CHARS:
        return (
            f"Large {path} will impact performance ({len(text):,} chars > "
            f"{LARGE_MEMORY_CHARS:,}): it is sent whole with every request"
        )
    return ""


def _cut_marker(path: Path) -> str:
    return f"\n[... cut: {path} is longer than shown]"


def add_file(
    out: LoadedMemory,
    path: Path,
    kind: str,
    home: Path,
    depth: int = 0,
    from_project: bool | None = None,
) -> None:
    """`path` and, after it, the files it imports (depth-first, each at most once).
    `from_project`: the chain started at a file inside the confined project (None: `path`)."""
    if from_project is None:
        from_project = out.from_project(path)
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError, ValueError):
        # A symlink loop (`CLAUDE.md -> CLAUDE.md`, a.md <-> b.md): said, never a crash.
        if os.path.islink(path):
            out.problems.append(f"memory file {path} skipped: its symlinks form a loop")
        return
    if resolved in out.seen:
        return
    if not _exists(path):
        return
    reason = out.refusal(path) or (out.outside_reason(path) if from_project else "")
    if reason:
        out.seen.add(resolved)
        out.problems.append(f"memory file {path} not loaded: {reason}")
        return
    text = read_memory_text(path)
    if text is None:
        return
    size_note = memory_size_note(path, text)
    if size_note:
        out.problems.append(size_note)
    if "\x00" in text:
        # A binary file (an `@bin.dat` import): Claude Code leaves it out; NUL bytes would go
        # into the system prompt.
        out.seen.add(resolved)
        out.problems.append(f"memory file {path} not loaded: it is a binary file")
        return
    out.seen.add(resolved)
    if text.strip():
        out.files.append(MemoryFile(path, text, kind))
    if depth >= MAX_IMPORT_DEPTH:
        return
    for target in import_paths(text, path.parent, home):
        add_file(out, target, kind, home, depth + 1, from_project)


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, RuntimeError, ValueError):
        return False


def _ancestors(project_root: Path) -> list[Path]:
    try:
        resolved = project_root.resolve()
    except (OSError, RuntimeError):
        return []
    return list(reversed(resolved.parents))


def _folders(project_root: Path, cwd: Path) -> list[Path]:
    """The project root, then each folder down to the working directory."""
    try:
        rel = cwd.resolve().relative_to(project_root.resolve())
    except ValueError:
        return [project_root] if project_root == cwd else [project_root, cwd]
    folders = [project_root]
    current = project_root
    for part in rel.parts:
        current = current / part
        folders.append(current)
    return folders


def _rules(
    out: LoadedMemory,
    folder: Path,
    home: Path,
    rules_dir: Path | None = None,
    kind: str = "project",
) -> None:
    """`folder/.claude/rules/**/*.md` (or `rules_dir`): plain ones now, `paths:` ones when the
    model works on a matching file (globs relative to `folder`)."""
    rules_dir = rules_dir or folder / ".claude" / "rules"
    try:
        paths = sorted(rules_dir.rglob("*.md")) if rules_dir.is_dir() else []
    except (OSError, RuntimeError):
        return
    for path in paths:
        try:
            if path.resolve() in out.seen:
                continue  # `~/.claude/rules` read as the user's, and again as a folder above
        except (OSError, RuntimeError):
            continue
        reason = out.refusal(path)
        if reason:
            out.problems.append(f"rule file {path} not loaded: {reason}")
            continue
        text = read_memory_text(path)
        if text is None:
            continue
        try:
            fields, body = split_frontmatter(text)
        except FrontmatterError as exc:
            out.problems.append(f"rule file {path} skipped: {exc}")
            continue
        globs = as_list(fields.get("paths"))
        if globs:
            out.seen.add(path.resolve())
            out.conditional.append(ConditionalRule(path, folder, tuple(globs), body.strip()))
        elif fields:
            # Frontmatter is metadata: the model gets the body, as with commands.
            out.seen.add(path.resolve())
            if body.strip():
                out.files.append(MemoryFile(path, body.strip(), kind))
        else:
            add_file(out, path, kind, home)


def load_memory(
    cwd: Path,
    project_root: Path,
    config_dir: Path | None,
    env: Mapping[str, str] | None = None,
    refuse: Callable[[Path], str] | None = None,
    extra_dirs: Sequence[Path] = (),
    confine_to: Path | None = None,
    sources: Collection[str] | None = None,
) -> LoadedMemory:
    """`extra_dirs`: `--add-dir` folders whose CLAUDE.md, .claude/CLAUDE.md and rules load after
    the project's (app/compose.py passes them only under
    CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD, as Claude Code does). `sources`
    (--setting-sources): only these of user, project and local files, as Claude Code 2.1.332
    loads only the chosen sources' memory (ext-r5 F8); None: all."""
    e = os.environ if env is None else env
    home = Path(e["HOME"]) if e.get("HOME") else Path.home()
    out = LoadedMemory(refuse=refuse, confine_to=confine_to)
    if sources is not None and "user" not in sources:
        config_dir = None
    if config_dir is not None:
        for name in LATHE_NAMES:
            add_file(out, config_dir / name, "user", home)
    user_dir = claude_user_dir(env)
    if sources is None or "user" in sources:
        add_file(out, user_dir / "CLAUDE.md", "user", home)
        # User rules (`~/.claude/rules/*.md`), after the user's CLAUDE.md, as Claude Code does.
        _rules(out, home, home, user_dir / "rules", "user")
    # The folders above the project too (Claude Code reads CLAUDE.md files up to the root, so a
    # folder of repositories can share one), outermost first.
    folders = [*_ancestors(project_root), *_folders(project_root, cwd)]
    project = [] if sources is not None and "project" not in sources else folders
    for folder in project:
        for name in LATHE_NAMES:
            add_file(out, folder / name, "project", home)
        add_file(out, folder / ".claude" / "CLAUDE.md", "project", home)
        _rules(out, folder, home)
    for folder in extra_dirs if project else ():
        add_file(out, folder / "CLAUDE.md", "project", home)
        add_file(out, folder / ".claude" / "CLAUDE.md", "project", home)
        _rules(out, folder, home)
    for folder in [] if sources is not None and "local" not in sources else folders:
        add_file(out, folder / "CLAUDE.local.md", "local", home)
    return out


def memory_block_text(files: list[MemoryFile]) -> str:
    """The system-prompt block: each file under Claude Code's "Contents of ..." heading."""
    parts = [MEMORY_PREAMBLE]
    parts += [f"Contents of {m.path} ({m.label}):\n\n{m.text.strip()}" for m in files]
    return "\n\n".join(parts)
