"""Slash commands, the command palette, the trust dialog, the resume picker and themes."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.engine.events import UsageUpdated
from app.tui.app import LatheApp
from app.tui.commands import COMMANDS
from app.tui.ports import SessionSummary
from app.tui.screens.resume import ResumeScreen
from app.tui.screens.trust import TrustScreen
from tests.tui.conftest import SIZE, ScriptedSession, make_app
from themes.loader import ThemeError, lathe_themes, load_theme_file
from widgets.message_blocks import NoticeBlock


def notices(app: LatheApp) -> list[str]:
    return [n.text for n in app.main.conversation.query(NoticeBlock)]


async def run_command(app: LatheApp, pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*text, "enter")
    await pilot.pause()


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("/help", "Shift+Tab"),
        ("/model", "Model: claude-sonnet-4-5"),
        ("/permissions", "Permission mode: default"),
        ("/cost", "No requests yet"),
        ("/tools", "Tools: Read, Edit, Bash"),
        ("/mcp", "No MCP servers configured."),
        ("/theme", "Available:"),
        ("/nosuch", "Unknown command /nosuch"),
        ("/resume", "No saved sessions"),
    ],
)
async def test_informational_commands(command: str, expected: str) -> None:
    app = make_app()
    session = ScriptedSession(app)
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await run_command(app, pilot, command)
        assert any(expected in t for t in notices(app)), notices(app)
        assert session.prompts == []  # commands never reach the model


async def test_cost_after_usage() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(UsageUpdated(1500, 200, 1000, 0, 0.0123))
        await run_command(app, pilot, "/cost")
        assert any("$0.0123" in t and "1.5k" in t for t in notices(app))


async def test_clear_and_quit() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_command(app, pilot, "/help")
        assert notices(app)
        await run_command(app, pilot, "/clear")
        # The old blocks are gone; what is left says the model forgot too.
        from app.tui.commands import CLEARED_TEXT

        assert notices(app) == [CLEARED_TEXT]
        assert "model's context" in CLEARED_TEXT
        await run_command(app, pilot, "/quit")
    assert app.return_code == 0


async def test_theme_switch_and_unknown_theme() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "lathe-dark"
        await run_command(app, pilot, "/theme lathe-light")
        assert app.theme == "lathe-light"
        await run_command(app, pilot, "/theme nosuch")
        assert app.theme == "lathe-light"
        assert any("Unknown theme 'nosuch'" in t for t in notices(app))


async def test_unknown_theme_in_config_is_a_readable_error() -> None:
    app = make_app(theme="nope")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert any("Unknown theme 'nope'" in t for t in notices(app))


async def test_palette_lists_the_slash_commands() -> None:
    app = make_app()
    async with app.run_test(size=SIZE):
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {f"/{c.name}" for c in COMMANDS} <= titles


async def test_model_switch_needs_a_session_that_can() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_command(app, pilot, "/model claude-opus-4")
        assert any("needs a running session" in t for t in notices(app))


@pytest.mark.parametrize(("key", "trusted"), [("1", True), ("2", False), ("escape", False)])
async def test_trust_dialog(key: str, trusted: bool) -> None:
    answers: list[tuple[str, bool]] = []
    app = make_app(ask_trust_for="/srv/project", on_trust=lambda f, t: answers.append((f, t)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await pilot.press(key)
        await pilot.pause()
        assert answers == [("/srv/project", trusted)]
        assert not isinstance(app.screen, TrustScreen)


async def test_trust_dialog_click() -> None:
    answers: list[tuple[str, bool]] = []
    app = make_app(ask_trust_for="/srv/p", on_trust=lambda f, t: answers.append((f, t)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.click("#yes")
        await pilot.pause()
        assert answers == [("/srv/p", True)]


async def test_resume_picker_picks_a_session() -> None:
    resumed: list[str] = []
    sessions = [SessionSummary("s1", "one"), SessionSummary("s2", "two")]
    app = make_app(list_sessions=lambda: sessions, on_resume=resumed.append)
    async with app.run_test(size=SIZE) as pilot:
        await run_command(app, pilot, "/resume")
        assert isinstance(app.screen, ResumeScreen)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert resumed == ["s2"]
        await run_command(app, pilot, "/resume")
        await pilot.press("escape")
        await pilot.pause()
        assert resumed == ["s2"] and not isinstance(app.screen, ResumeScreen)


def test_lathe_ships_three_themes() -> None:
    found = lathe_themes()
    assert {"lathe-dark", "lathe-light", "lathe-steel"} <= set(found.themes)
    assert found.errors == []


def test_user_themes_load_and_bad_files_are_reported(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text('[colors]\nprimary = "#ff0000"\n')
    (tmp_path / "broken.toml").write_text("[colors\n")
    (tmp_path / "badcolour.toml").write_text('[colors]\nprimary = "reddish"\n')
    found = lathe_themes(tmp_path)
    assert found.themes["mine"].primary == "#ff0000"
    assert any("broken.toml: invalid TOML" in e for e in found.errors)
    assert any(
        "badcolour.toml: colors.primary = 'reddish' is not a colour" in e for e in found.errors
    )
    with pytest.raises(ThemeError, match="Unknown theme 'zzz'"):
        found.get("zzz")


def test_theme_file_needs_primary(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[colors]\naccent = "#00ff00"\n')
    with pytest.raises(ThemeError, match=r"colors\.primary is required"):
        load_theme_file(path)


async def test_user_theme_dir_is_used_by_the_app(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text('name = "mine"\n[colors]\nprimary = "#ff0000"\n')
    app = make_app(user_theme_dir=str(tmp_path), theme="mine")
    async with app.run_test(size=SIZE):
        assert app.theme == "mine"


class McpSession(ScriptedSession):
    reconnected: list[str] = []

    def mcp_status(self) -> list[dict[str, str]]:
        return [{"name": "files", "status": "failed"}, {"name": "search", "status": "connected"}]

    async def reconnect_mcp(self, name: str) -> str:
        self.reconnected.append(name)
        return f"{name}: connected, 3 tools"


async def test_mcp_lists_servers_and_reconnects() -> None:
    app = make_app()
    session = McpSession(app)
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await run_command(app, pilot, "/mcp")
        assert any("files (failed)" in t and "search (connected)" in t for t in notices(app))
        await run_command(app, pilot, "/mcp reconnect files")
        await pilot.pause()
        assert session.reconnected == ["files"]
        assert any("files: connected, 3 tools" in t for t in notices(app))
