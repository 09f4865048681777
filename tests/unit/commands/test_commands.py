"""Custom commands: loading, names, frontmatter, arguments (numbering measured on Claude Code
2.1.332: `/frontend:test alpha "beta gamma" delta` gave $0=alpha, $1=beta gamma, $2=delta)."""

from __future__ import annotations

from pathlib import Path

from app.commands.arguments import substitute
from app.commands.loader import BUILTIN_COMMAND_NAMES, load_commands
from app.commands.prompt import match_command


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_arguments_as_claude_code_numbers_them() -> None:
    body = "ALL=[$ARGUMENTS] ZERO=[$0] ONE=[$1] TWO=[$2] IDX1=[$ARGUMENTS[1]] NONE=[$7]"
    assert substitute(body, 'alpha "beta gamma" delta') == (
        'ALL=[alpha "beta gamma" delta] ZERO=[alpha] ONE=[beta gamma] TWO=[delta] '
        "IDX1=[beta gamma] NONE=[$7]"
    )


def test_arguments_appended_when_the_body_has_no_placeholder() -> None:
    # Measured: Claude Code sent "Review it. Price $10 and $1x.\n\n\nARGUMENTS: staged \"two
    # words\"" for that body with those arguments (nothing substituted, so they are appended).
    body = "Review it. Price $10 and $1x.\n"
    assert substitute(body, 'staged "two words"') == (
        'Review it. Price $10 and $1x.\n\n\nARGUMENTS: staged "two words"'
    )
    assert substitute("Review it.", "") == "Review it."
    assert substitute("[$1] $1x", "a b") == "[b] $1x"


def test_folders_namespaces_precedence_and_problems(tmp_path: Path) -> None:
    home, proj, lathe = tmp_path / "home", tmp_path / "proj", tmp_path / "lathe"
    _write(home / ".claude" / "commands" / "hello.md", "user hello")
    _write(home / ".claude" / "commands" / "mine.md", "---\ndescription: Mine\n---\nbody")
    _write(lathe / "commands" / "lathe-only.md", "from lathe config")
    _write(proj / ".claude" / "commands" / "hello.md", "project hello")
    _write(
        proj / ".claude" / "commands" / "frontend" / "test.md", "---\nargument-hint: [f]\n---\nt"
    )
    _write(proj / ".lathe" / "commands" / "x.md", "dot-lathe")
    _write(proj / ".claude" / "commands" / "broken.md", "---\ndescription: x\nnot yaml\n---\n")
    _write(proj / ".claude" / "commands" / "unclosed.md", "---\ndescription: x\n")
    _write(proj / ".claude" / "commands" / "help.md", "shadowing a built-in")
    found = load_commands(proj, lathe, BUILTIN_COMMAND_NAMES, {"HOME": str(home)})
    assert sorted(found.commands) == [
        "frontend:test",
        "hello",
        "lathe-only",
        "mine",
        "unclosed",
        "x",
    ]
    # A frontmatter never closed is no frontmatter: the whole file is the body (ext-r3 F3).
    assert found.commands["unclosed"].body == "---\ndescription: x\n"
    # The user's command wins, as in Claude Code 2.1.332 (ext-r2 F1): a clone cannot shadow it.
    assert found.commands["hello"].body == "user hello"
    assert found.commands["frontend:test"].help == "t [f] (project)"
    assert found.commands["mine"].help == "Mine (user)"
    problems = "\n".join(found.problems)
    assert "broken.md skipped: line 3" in problems
    assert "never closed" not in problems
    assert "/help" in problems and "built-in" in problems


def test_frontmatter_fields_never_reach_the_body(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    _write(
        proj / ".claude" / "commands" / "c.md",
        "---\ndescription: D\nargument-hint: [n]\nallowed-tools: Bash(git add:*), Read\n"
        "model: claude-haiku-4-5\n---\nDo $ARGUMENTS\n",
    )
    command = load_commands(proj, None, (), {"HOME": str(tmp_path)}).commands["c"]
    assert command.body == "Do $ARGUMENTS\n"
    assert command.allowed_tools == ("Bash(git add:*)", "Read")
    assert command.model == "claude-haiku-4-5"
    hit = match_command("/c 12", load_commands(proj, None, (), {"HOME": str(tmp_path)}))
    assert hit is not None and hit[1] == "12"
    assert match_command("/unknown 12", load_commands(proj, None, (), {})) is None


def test_builtin_names_match_the_tui() -> None:
    from app.tui.commands import COMMANDS

    assert {c.name for c in COMMANDS} == BUILTIN_COMMAND_NAMES
