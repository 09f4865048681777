"""Custom commands (.claude/commands) in `/` completion, the palette, and sent as prompts."""

from __future__ import annotations

from pathlib import Path

from app.commands.loader import BUILTIN_COMMAND_NAMES, load_commands
from tests.tui.conftest import SIZE, ScriptedSession, make_app


def _infos(found):  # type: ignore[no-untyped-def]
    """What Session.custom_commands gives the TUI (the session port), from a CommandSet."""
    from app.engine.api import CommandInfo

    return tuple(CommandInfo(c.name, c.help) for c in found.sorted())


def _session_with_commands(app, tmp_path: Path) -> ScriptedSession:  # type: ignore[no-untyped-def]
    folder = tmp_path / "proj" / ".claude" / "commands" / "frontend"
    folder.mkdir(parents=True)
    (folder / "test.md").write_text("---\ndescription: Run the frontend tests\n---\nGo $0\n")
    found = load_commands(tmp_path / "proj", None, BUILTIN_COMMAND_NAMES, {"HOME": str(tmp_path)})
    return ScriptedSession(app, commands=found)


async def test_listed_completed_and_sent_to_the_model(tmp_path: Path) -> None:
    app = make_app()
    session = _session_with_commands(app, tmp_path)
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        app.add_custom_commands()
        await pilot.press(*"/fro")
        await pilot.pause()
        hint = str(app.main.hint.render())
        assert "/frontend:test" in hint and "Run the frontend tests (project)" in hint
        await pilot.press("tab")
        assert app.main.prompt.text == "/frontend:test "
        await pilot.press(*"x.ts", "enter")
        await pilot.pause()
        assert session.prompts == ["/frontend:test x.ts"]  # the engine expands it
        palette = [c.title for c in app.get_system_commands(app.screen)]
        assert "/frontend:test" in palette and "/help" in palette


def test_fuzzy_path_ranking(tmp_path: Path) -> None:
    from widgets.path_complete import PathIndex, quote

    for rel in (
        "src/app/main.py",
        "src/app/mainframe.txt",
        "docs/a b.txt",
        "node_modules/x/main.py",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    index = PathIndex(tmp_path)
    assert index.matches("main")[:2] == ["src/app/main.py", "src/app/mainframe.txt"]
    assert "node_modules/x/main.py" not in index.paths()  # dependency folders are skipped
    assert index.matches("sapm") == ["src/app/main.py", "src/app/mainframe.txt"]  # subsequence
    assert index.matches("zzz") == []
    assert quote("docs/a b.txt") == '@"docs/a b.txt"'


async def test_at_path_completion_in_the_prompt(tmp_path: Path) -> None:
    from widgets.path_complete import PathIndex

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "engine.py").write_text("x")
    (tmp_path / "a b.txt").write_text("x")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.main.prompt.paths = PathIndex(tmp_path)
        await pilot.press(*"look at @engpy")
        await pilot.pause()
        assert "@src/engine.py" in str(app.main.hint.render())
        await pilot.press("tab")
        assert app.main.prompt.text == "look at @src/engine.py "
        app.main.prompt.load_text("and @ab")
        await pilot.press("tab")
        assert app.main.prompt.text == 'and @"a b.txt" '
        app.main.prompt.load_text("mail me@example")  # not at a word start: no completion
        assert app.main.prompt.completions() == []


async def test_skills_are_listed_completed_and_in_the_palette(tmp_path: Path) -> None:
    """A skill (.claude/skills/NAME/SKILL.md) is `/NAME` like a command, marked as a skill."""
    from app.skills.session_load import load_for_session

    folder = tmp_path / "proj" / ".claude" / "skills" / "release-notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Draft the release notes\n---\nDraft them.\n"
    )
    app = make_app()
    session = ScriptedSession(app)
    found, _skills = load_for_session(str(tmp_path / "proj"), env={"HOME": str(tmp_path)})
    session.custom_commands = lambda: _infos(found)  # type: ignore[attr-defined]
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        app.add_custom_commands()
        await pilot.press(*"/rele")
        await pilot.pause()
        hint = str(app.main.hint.render())
        assert "/release-notes" in hint and "Draft the release notes (skill, project)" in hint
        await pilot.press("tab")
        assert app.main.prompt.text == "/release-notes "
        await pilot.press(*"v2", "enter")
        await pilot.pause()
        assert session.prompts == ["/release-notes v2"]
        palette = [c.title for c in app.get_system_commands(app.screen)]
        assert "/release-notes" in palette
