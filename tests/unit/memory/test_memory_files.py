"""Memory files as Claude Code loads them (order measured against Claude Code 2.1.332)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.memory.files import load_memory, memory_block_text
from app.memory.frontmatter import FrontmatterError, as_list, split_frontmatter
from app.memory.imports import import_paths
from app.memory.nested import NestedMemory, glob_matches
from tools.base import Tool
from tools.files.common import PathArgument
from tools.registry import find_tool, get_all_base_tools

BUILTINS = get_all_base_tools()


def FIND(name: str) -> Tool[Any] | None:
    return find_tool(BUILTINS, name)


def _names(files) -> list[str]:
    return [str(m.path) for m in files]


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, Path]:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("user memory")
    proj = tmp_path / "proj"
    (proj / ".claude" / "rules").mkdir(parents=True)
    (proj / "docs").mkdir()
    (proj / "CLAUDE.md").write_text(
        "Project.\nSee @docs/extra.md and `@not/this.md`.\n```\n@fenced.md\n```\n"
        "Mail a@b.com, home @~/personal.md, missing @nope.md\n"
    )
    (proj / "docs" / "extra.md").write_text("Extra. Back to @../CLAUDE.md (a cycle)")
    (proj / "not").mkdir()
    (proj / "not" / "this.md").write_text("CODE SPAN IMPORTED")
    (proj / "fenced.md").write_text("FENCE IMPORTED")
    (home / "personal.md").write_text("personal via tilde")
    (proj / ".claude" / "CLAUDE.md").write_text("dot-claude memory")
    (proj / ".claude" / "rules" / "always.md").write_text("Always rule.")
    (proj / ".claude" / "rules" / "py.md").write_text(
        '---\npaths:\n  - "src/**/*.py"\n---\nPython rule.\n'
    )
    (proj / "CLAUDE.local.md").write_text("local memory")
    return {"home": home, "proj": proj}


def test_order_imports_and_kinds(setup: dict[str, Path]) -> None:
    home, proj = setup["home"], setup["proj"]
    loaded = load_memory(proj, proj, None, {"HOME": str(home)})
    assert _names(loaded.files) == [
        str(home / ".claude" / "CLAUDE.md"),
        str(proj / "CLAUDE.md"),
        str(proj / "docs" / "extra.md"),
        str(home / "personal.md"),
        str(proj / ".claude" / "CLAUDE.md"),
        str(proj / ".claude" / "rules" / "always.md"),
        str(proj / "CLAUDE.local.md"),
    ]
    assert [m.kind for m in loaded.files] == [
        "user",
        "project",
        "project",
        "project",
        "project",
        "project",
        "local",
    ]
    text = memory_block_text(loaded.files)
    assert "CODE SPAN IMPORTED" not in text and "FENCE IMPORTED" not in text
    assert "Python rule." not in text  # conditional: only with a matching file
    assert (
        f"Contents of {proj / 'CLAUDE.local.md'} (user's private project instructions, not checked in)"
        in text
    )
    assert [r.globs for r in loaded.conditional] == [("src/**/*.py",)]


def test_claude_config_dir_replaces_dot_claude(setup: dict[str, Path], tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "CLAUDE.md").write_text("from CLAUDE_CONFIG_DIR")
    env = {"HOME": str(setup["home"]), "CLAUDE_CONFIG_DIR": str(cfg)}
    loaded = load_memory(setup["proj"], setup["proj"], None, env)
    assert loaded.files[0].text == "from CLAUDE_CONFIG_DIR"


def test_lathe_config_dir_files_come_first(setup: dict[str, Path], tmp_path: Path) -> None:
    lathe = tmp_path / "lathe"
    lathe.mkdir()
    (lathe / "LATHE.md").write_text("lathe user memory")
    loaded = load_memory(setup["proj"], setup["proj"], lathe, {"HOME": str(setup["home"])})
    assert loaded.files[0].text == "lathe user memory"


def test_import_depth_is_four_as_claude_code_loads(tmp_path: Path) -> None:
    for i in range(8):
        (tmp_path / f"f{i}.md").write_text(f"level {i} @f{i + 1}.md")
    (tmp_path / "CLAUDE.md").write_text("@f0.md")
    loaded = load_memory(tmp_path, tmp_path, None, {"HOME": str(tmp_path)})
    # CLAUDE.md is depth 0; f0..f3 are depths 1..4; f4 would be depth 5 (Claude Code 2.1.332
    # leaves it out, measured in ext-r3 F4).
    assert [p.name for p in (m.path for m in loaded.files)] == [
        "CLAUDE.md",
        "f0.md",
        "f1.md",
        "f2.md",
        "f3.md",
    ]


def test_import_paths_skip_emails_and_code(tmp_path: Path) -> None:
    text = "x@y.com @a.md `@b.md` (@c/d.md) @/abs/e.md\n```\n@f.md\n```\n~~~\n@g.md\n~~~\n@h\\ i.md"
    got = import_paths(text, tmp_path, Path("/home/u"))
    assert got == [tmp_path / "a.md", Path("/abs/e.md"), tmp_path / "h i.md"]


def test_frontmatter() -> None:
    fields, body = split_frontmatter(
        "---\ndescription: \"Run it\"\nallowed-tools: Bash(git add:*), Read\nlist:\n  - a\n  - 'b'\n"
        "inline: [x, y]\n---\nBody $ARGUMENTS\n"
    )
    assert fields["description"] == "Run it"
    assert as_list(fields["allowed-tools"]) == ["Bash(git add:*)", "Read"]
    assert fields["list"] == ["a", "b"]
    assert as_list(fields["inline"]) == ["x", "y"]
    assert body == "Body $ARGUMENTS\n"
    assert split_frontmatter("no frontmatter") == ({}, "no frontmatter")
    with pytest.raises(FrontmatterError):
        split_frontmatter("---\ndescription: x\n")
    with pytest.raises(FrontmatterError):
        split_frontmatter("---\njust words\n---\n")


def test_globs() -> None:
    assert glob_matches("src/**/*.py", "src/a.py")
    assert glob_matches("src/**/*.py", "src/x/y/a.py")
    assert not glob_matches("src/**/*.py", "lib/a.py")
    assert not glob_matches("*.py", "src/a.py")
    assert glob_matches("**/*.{ts,tsx}", "web/app.tsx")


def test_nested_memory_once_per_folder_and_rules(setup: dict[str, Path]) -> None:
    proj = setup["proj"]
    (proj / "sub" / "deeper").mkdir(parents=True)
    (proj / "sub" / "CLAUDE.md").write_text("sub memory")
    (proj / "sub" / "deeper" / "f.txt").write_text("x")
    (proj / "src" / "pkg").mkdir(parents=True)
    loaded = load_memory(proj, proj, None, {"HOME": str(setup["home"])})
    nested = NestedMemory(proj, loaded)
    first = nested.reminder_blocks(
        [{"name": "Read", "input": {"file_path": str(proj / "sub" / "deeper" / "f.txt")}}],
        FIND,
    )
    assert len(first) == 1 and "sub memory" in first[0]["text"]
    again = nested.reminder_blocks([{"name": "Edit", "input": {"file_path": "sub/f.txt"}}], FIND)
    assert again == []  # once per session
    assert (
        nested.reminder_blocks([{"name": "Bash", "input": {"command": "cat src/a.py"}}], FIND) == []
    )
    rule = nested.reminder_blocks([{"name": "Write", "input": {"file_path": "src/pkg/m.py"}}], FIND)
    assert len(rule) == 1 and "Python rule." in rule[0]["text"]
    # The root CLAUDE.md, loaded at startup, is never attached again.
    assert (
        nested.reminder_blocks([{"name": "Read", "input": {"file_path": "CLAUDE.md"}}], FIND) == []
    )


def test_nested_memory_follows_the_tools_declaration_not_its_name(setup: dict[str, Path]) -> None:
    """Any tool that declares it touches a file reaches nested memory (an MCP or plugin file tool
    too); a tool named like a file tool that does not declare it does not."""

    class Annotate(PathArgument, Tool[Any]):
        name = "mcp__notes__annotate"
        touches_file = True

    class NotAFileTool(Tool[Any]):
        name = "Read"  # the name alone decides nothing

    proj = setup["proj"]
    (proj / "sub").mkdir()
    (proj / "sub" / "CLAUDE.md").write_text("sub memory")
    nested = NestedMemory(proj, load_memory(proj, proj, None, {"HOME": str(setup["home"])}))
    use = {"name": "Read", "input": {"file_path": str(proj / "sub" / "f.txt")}}
    assert nested.reminder_blocks([use], lambda _name: NotAFileTool()) == []
    use = {"name": Annotate.name, "input": {"file_path": str(proj / "sub" / "f.txt")}}
    blocks = nested.reminder_blocks([use], lambda _name: Annotate())
    assert len(blocks) == 1 and "sub memory" in blocks[0]["text"]
