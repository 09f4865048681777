"""UI choices (/theme, the palette's theme picker, F2's mouse capture) are kept in the user's
settings file, written atomically without losing its other settings or comments, and restored by
the next start (make_config reads the same file)."""

from __future__ import annotations

from pathlib import Path

from app.cli import parse_args
from app.compose_tui import make_config, save_ui_choice
from app.config.ui_settings import UiSettingError, save_ui_setting, user_settings_path
from app.tui.app import LatheApp
from tests.tui.conftest import SIZE, make_app
from widgets.message_blocks import NoticeBlock

USER_FILE = """\
# my lathe settings
model = "claude-opus-4-1"  # the one I pay for

[permissions]
allow = ["Bash(ls:*)"]  # keep this
"""


def notices(app: LatheApp) -> list[str]:
    return [n.text for n in app.main.conversation.query(NoticeBlock)]


def test_saving_keeps_comments_and_other_settings(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(USER_FILE)
    save_ui_setting("theme", "lathe-light", path)
    save_ui_setting("mouse", False, path)
    text = path.read_text()
    assert text.startswith(USER_FILE.split("\n[permissions]")[0])
    assert "# keep this" in text and 'allow = ["Bash(ls:*)"]' in text
    assert 'theme = "lathe-light"' in text and "mouse = false" in text
    save_ui_setting("theme", "lathe-steel", path)
    assert path.read_text().count("theme =") == 1 and 'theme = "lathe-steel"' in path.read_text()
    # Written by rename: no temporary file is left beside it.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.toml"]


def test_a_linked_settings_file_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "lathe.toml"
    real.parent.mkdir()
    real.write_text("# from my dotfiles\n")
    link = tmp_path / "settings.toml"
    link.symlink_to(real)
    save_ui_setting("theme", "lathe-light", link)
    assert link.is_symlink() and link.resolve() == real
    assert real.read_text() == '# from my dotfiles\ntheme = "lathe-light"\n'


def test_a_broken_file_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text("theme = [\n")
    try:
        save_ui_setting("theme", "lathe-light", path)
    except UiSettingError as exc:
        assert "not valid TOML, not changed" in str(exc) and str(path) in str(exc)
    else:
        raise AssertionError("a broken file was rewritten")
    assert path.read_text() == "theme = [\n"


def test_only_ui_keys_are_saved(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    for key, value in (("model", "x"), ("theme", True), ("mouse", "no")):
        try:
            save_ui_setting(key, value, path)
        except UiSettingError:
            continue
        raise AssertionError(f"{key}={value!r} was saved")
    assert not path.exists()


async def test_theme_and_mouse_choices_are_saved_and_restored(project: Path) -> None:
    (project / ".git").mkdir()
    path = user_settings_path()
    path.parent.mkdir(parents=True)
    path.write_text(USER_FILE)
    config = make_config(parse_args([]), cwd=project)
    assert config.theme == "lathe-dark" and config.mouse_captured
    config.ask_trust_for = None  # the folder's trust is another test's matter
    app = LatheApp(config)
    async with app.run_test(size=SIZE) as pilot:
        # Applying the settings' own theme at start writes nothing.
        assert path.read_text() == USER_FILE
        await pilot.press(*"/theme lathe-light", "enter")
        await pilot.pause()
        assert app.theme == "lathe-light"
        assert any("saved in" in n and "settings.toml" in n for n in notices(app)), notices(app)
        await pilot.press("f2")
        await pilot.pause()
    text = path.read_text()
    assert 'theme = "lathe-light"' in text and "mouse = false" in text
    assert "# the one I pay for" in text and "# keep this" in text
    # The next start opens the same way.
    again = make_config(parse_args([]), cwd=project)
    assert again.theme == "lathe-light" and again.mouse_captured is False
    again.ask_trust_for = None
    restarted = LatheApp(again)
    async with restarted.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert restarted.theme == "lathe-light" and not restarted.mouse_reporting
        assert not restarted.main.status_bar.info.mouse_captured
    assert path.read_text() == text  # restoring saved nothing new


async def test_the_palette_theme_picker_is_saved_too(tmp_path: Path) -> None:
    saved: list[tuple[str, object]] = []
    path = tmp_path / "settings.toml"

    def save(key: str, value: str | bool) -> str | None:
        saved.append((key, value))
        save_ui_setting(key, value, path)
        return None

    app = make_app(save_setting=save, settings_file="~/x/settings.toml")
    async with app.run_test(size=SIZE) as pilot:
        app.theme = "lathe-steel"  # what Textual's "Change theme" palette entry does
        await pilot.pause()
    assert saved == [("theme", "lathe-steel")]
    assert 'theme = "lathe-steel"' in path.read_text()


async def test_a_failed_save_says_so(tmp_path: Path) -> None:
    app = make_app(save_setting=lambda key, value: "/x/settings.toml: cannot write: Read-only")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/theme lathe-light", "enter")
        await pilot.pause()
        shown = notices(app)
    assert app.theme == "lathe-light"
    assert any(n.startswith("Not saved for next time: /x/settings.toml") for n in shown), shown
    assert not any("saved in" in n for n in shown)


def test_the_composition_saver_reports_problems() -> None:
    path = user_settings_path()
    path.parent.mkdir(parents=True)
    path.write_text("theme = [\n")
    problem = save_ui_choice("theme", "lathe-light")
    assert problem is not None and "not valid TOML" in problem
    assert save_ui_choice("mouse", True) is not None  # the same broken file
    path.write_text("")
    assert save_ui_choice("theme", "lathe-light") is None
    assert path.read_text() == 'theme = "lathe-light"\n'


async def test_the_reload_after_a_save_is_no_news_and_a_real_change_is() -> None:
    from app.tui.ports import SettingsReport

    saved: list[tuple[str, object]] = []
    app = make_app(save_setting=lambda key, value: saved.append((key, value)) and None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/theme lathe-light", "enter")
        await pilot.pause()
        # The watcher reads back what lathe just wrote.
        app.settings.apply(
            SettingsReport("lathe-light", None, ("Theme from settings: lathe-light",))
        )
        await pilot.pause()
        assert not any(n.startswith("Theme from settings") for n in notices(app))
        # Someone edits the file: that theme is the settings' own, applied and not saved back.
        app.settings.apply(
            SettingsReport("lathe-steel", None, ("Theme from settings: lathe-steel",))
        )
        await pilot.pause()
        assert app.theme == "lathe-steel"
        assert "Theme from settings: lathe-steel" in notices(app)
    assert saved == [("theme", "lathe-light")]
