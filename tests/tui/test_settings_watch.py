"""Live settings reload on real files: what a reload finds, and the watchfiles loop noticing it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.config.loader import CliOverrides
from app.config.watch import watch_roots, watch_settings
from app.permissions import PermissionContext, allow_for_session
from app.permissions.reload import SettingsReloader


@pytest.fixture
def proj(project: Path) -> Path:
    (project / ".git").mkdir()
    return project


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_rules_reload_keeps_mode_and_session_rules(proj: Path) -> None:
    settings = write(proj / ".lathe" / "settings.toml", '[permissions]\nallow = ["Read"]\n')
    reloader = SettingsReloader(proj)
    reloader.prime()
    live = allow_for_session(
        PermissionContext(mode="acceptEdits", project_dir=str(proj)), ["Bash(ls:*)"]
    )

    settings.write_text('[permissions]\nallow = ["Read"]\ndeny = ["Bash(rm:*)"]\n')
    change = reloader.reload(live)

    assert change.context is not None
    assert change.context.mode == "acceptEdits"
    assert {r.display() for r in change.context.deny} == {"Bash(rm:*)"}
    assert {r.display() for r in change.context.allow} == {"Read", "Bash(ls:*)"}
    assert change.messages == ["Permission rules reloaded: +deny Bash(rm:*)"]
    assert change.theme is None and change.keymap is None and change.problems == []


def test_unchanged_files_give_an_empty_change(proj: Path) -> None:
    write(proj / ".lathe" / "settings.toml", 'theme = "lathe-light"\n')
    reloader = SettingsReloader(proj)
    reloader.prime()
    change = reloader.reload()
    assert change.empty and change.context is None


def test_broken_file_names_file_and_line(proj: Path) -> None:
    settings = write(proj / ".lathe" / "settings.toml", 'theme = "lathe-dark"\n')
    reloader = SettingsReloader(proj)
    reloader.prime()
    settings.write_text('theme = "lathe-dark"\n[permissions]\nallow = [Read]\n')
    change = reloader.reload()
    assert len(change.problems) == 1
    assert change.problems[0].startswith(f"{settings}:3:10: invalid TOML")
    # Its theme and keymap stay as they were until it parses again (it had no rules).
    assert change.context is None and change.theme is None
    assert change.messages == [
        f"Settings broken in {settings}: its deny and ask rules stay, its allow rules are off "
        "until it is fixed"
    ]
    # Fixing the file is a change too (the problem is gone, the rule arrives).
    settings.write_text('theme = "lathe-dark"\n[permissions]\nallow = ["Read"]\n')
    fixed = reloader.reload()
    assert fixed.problems == []
    assert fixed.messages == ["Permission rules reloaded: +allow Read"]


def test_broken_edit_keeps_the_old_denies_and_drops_the_files_allows(proj: Path) -> None:
    settings = write(
        proj / ".lathe" / "settings.toml",
        '[permissions]\ndeny = ["Bash(rm:*)"]\nask = ["Write"]\nallow = ["Read"]\n',
    )
    reloader = SettingsReloader(proj)
    reloader.prime()
    # Mid-edit: a new deny is being added and the file does not parse at all.
    settings.write_text('[permissions]\ndeny = ["Bash(rm:*)", "Bash(curl:*)"\nallow = ["Read"]\n')
    change = reloader.reload()
    assert change.context is not None
    assert [r.text for r in change.context.deny] == ["Bash(rm:*)"]
    assert [r.text for r in change.context.ask] == ["Write"]
    assert change.context.allow == ()
    assert "Permission rules reloaded: -allow Read" in change.messages
    # Saved again, still broken, now with a rule that does not parse: still the old denies, and
    # the ones it can read now.
    settings.write_text('[permissions]\ndeny = ["Bash(curl:*)", "Bash(:*)"]\nallow = ["Read"]\n')
    change = reloader.reload()
    assert change.context is not None
    assert sorted(r.text for r in change.context.deny) == ["Bash(curl:*)", "Bash(rm:*)"]
    assert [r.text for r in change.context.ask] == ["Write"] and change.context.allow == ()
    assert any(f"{settings}:2: permissions.deny" in p for p in change.problems)
    # Fixed: the file's own rules, exactly.
    settings.write_text('[permissions]\ndeny = ["Bash(curl:*)"]\nallow = ["Read"]\n')
    change = reloader.reload()
    assert change.context is not None and change.problems == []
    assert [r.text for r in change.context.deny] == ["Bash(curl:*)"]
    assert [r.text for r in change.context.allow] == ["Read"] and change.context.ask == ()


def test_theme_and_keymap_changes(proj: Path) -> None:
    user = Path.home() / ".config" / "lathe" / "settings.toml"  # LATHE_CONFIG_DIR of the tests
    write(user, 'theme = "lathe-dark"\n')
    reloader = SettingsReloader(proj)
    reloader.prime()
    write(user, 'theme = "lathe-steel"\n[keymap]\ncycle_mode = "ctrl+t"\n')
    write(proj / ".lathe" / "settings.toml", '[keymap]\ntoggle_mouse = "f3"\n')
    change = reloader.reload()
    assert change.theme == "lathe-steel"
    assert change.keymap == {"cycle_mode": "ctrl+t", "toggle_mouse": "f3"}
    assert "Theme from settings: lathe-steel" in change.messages
    assert change.problems == []  # `keymap` is not reported as an unknown setting


def test_bad_keymap_entry_is_a_problem_with_its_line(proj: Path) -> None:
    settings = write(proj / ".lathe" / "settings.toml", "")
    reloader = SettingsReloader(proj)
    reloader.prime()
    settings.write_text('theme = "lathe-dark"\n[keymap]\ncycle_mode = 3\nquit = "ctrl+x"\n')
    change = reloader.reload()
    # The file is refused as a whole (as the loader does with any bad value), with its line.
    assert change.keymap is None and change.theme is None
    assert change.problems == [
        f"{settings}:3: keymap.cycle_mode: Input should be a valid string (got int 3) "
        "(project settings)"
    ]


def test_settings_file_flag_is_watched(proj: Path, tmp_path: Path) -> None:
    extra = write(tmp_path / "extra.toml", "")
    reloader = SettingsReloader(proj, CliOverrides(settings_file=str(extra)))
    assert extra.resolve() in reloader.paths()
    reloader.prime()
    extra.write_text('[permissions]\nask = ["Write"]\n')
    assert reloader.reload().messages == ["Permission rules reloaded: +ask Write"]


def test_watch_roots_climb_to_existing_folders(proj: Path) -> None:
    roots = watch_roots([proj / ".lathe" / "settings.toml", proj / ".claude" / "settings.json"])
    assert roots == [proj]
    (proj / ".lathe").mkdir()
    assert watch_roots([proj / ".lathe" / "settings.toml"]) == [proj / ".lathe"]


async def _until(event: asyncio.Event, seen: list[str], want: int) -> None:
    while len(seen) < want:
        event.clear()
        await asyncio.wait_for(event.wait(), timeout=10)


@pytest.mark.timeout(30)
async def test_watch_notices_edits_and_a_new_settings_folder(proj: Path) -> None:
    reloader = SettingsReloader(proj)
    reloader.prime()
    seen: list[str] = []
    changed = asyncio.Event()

    def on_change() -> None:
        change = reloader.reload()
        if not change.empty:
            seen.extend(change.messages + change.problems)
            changed.set()

    stop = asyncio.Event()
    task = asyncio.create_task(watch_settings(reloader, on_change, stop=stop, debounce_ms=50))
    try:
        await asyncio.sleep(0.3)  # the watcher is armed
        # .lathe does not exist yet: the project folder is watched until it appears.
        write(proj / ".lathe" / "settings.toml", '[permissions]\ndeny = ["WebFetch"]\n')
        await _until(changed, seen, 1)
        assert seen == ["Permission rules reloaded: +deny WebFetch"]
        # Ignored: a file in the folder that is not a settings file.
        (proj / ".lathe" / "notes.txt").write_text("x")
        (proj / ".lathe" / "settings.toml").write_text('[permissions]\ndeny = ["Bash"]\n')
        await _until(changed, seen, 2)
        assert seen[1] == "Permission rules reloaded: +deny Bash, -deny WebFetch"
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=5)
