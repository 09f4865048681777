"""A denied edit keeps the change it proposed on screen (collapsed as a finished edit's diff is,
with its "+N -M"), in the main view, the full view and its search, live and after `-c`; and a
resumed edit that was made keeps its stat and diff. The diff comes from the engine's views (the
live call's preview; on resume, rebuilt by the engine from the recorded input), never from the
TUI reading files. A real Session behind the TUI, the HTTP fake of the API behind it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.cli import parse_args
from app.compose_tui import make_app as make_real_app
from app.model.scenario import text_turn, tool_use_block, turn_of
from app.permissions.trust import set_trusted
from app.tui.app import LatheApp
from app.tui.screens.permission import PermissionScreen
from tests.support.engine import fake_env
from tests.tui.conftest import SIZE
from tests.tui.test_dialog_on_real_session import real_app, wait_until
from tests.tui.test_full_view import full_text, open_view
from widgets.tool_block import ToolBlock, render_tool

pytestmark = pytest.mark.timeout(120)

ADDED = "".join(f"NEW LINE {i} WORDTHATWRAPS{i}\n" for i in range(8))


def _scenario(target: Path) -> list[Any]:
    made = {"file_path": str(target), "old_string": "line 2\n", "new_string": "LINE TWO\n"}
    denied = {"file_path": str(target), "old_string": "line 7\n", "new_string": ADDED}
    return [
        turn_of([tool_use_block("Read", {"file_path": str(target)}, "r1")]),
        turn_of([tool_use_block("Edit", made, "e1")]),
        turn_of([tool_use_block("Edit", denied, "e2")]),
        text_turn("never asked for: the deny ended the turn"),
    ]


def _blocks(app: LatheApp) -> dict[str, ToolBlock]:
    return {b.state.tool_use_id: b for b in app.main.conversation.query(ToolBlock)}


def _shown(block: ToolBlock) -> str:
    from rich.console import Console

    console = Console(width=400, record=True, color_system=None)
    console.print(render_tool(block.state, False))
    return console.export_text()


async def _answer(app: LatheApp, pilot: Any, key: str) -> None:
    await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen))
    await pilot.pause()
    dialog = app.screen
    await pilot.press(key)
    await wait_until(pilot, lambda: app.screen is not dialog)


async def _check_views(app: LatheApp, pilot: Any) -> None:
    blocks = _blocks(app)
    made, denied = blocks["e1"], blocks["e2"]
    assert made.state.status == "done" and "+1 -1" in _shown(made)
    assert "+LINE TWO" in _shown(made)
    shown = _shown(denied)
    assert denied.state.status == "denied"
    # The head keeps the stat; the body says it was denied, then shows the change.
    assert "Edit" in shown and "+8 -1" in shown and "Denied by you" in shown
    assert "+NEW LINE 0 WORDTHATWRAPS0" in shown and "-line 7" in shown
    assert shown.index("Denied by you") < shown.index("+NEW LINE 0")
    screen = await open_view(app, pilot)
    text = full_text(screen.document)
    assert "+NEW LINE 7 WORDTHATWRAPS7" in text and "Denied by you" in text
    await pilot.press("slash", *"WORDTHATWRAPS5", "enter")
    await wait_until(pilot, lambda: bool(screen.document.matches), timeout=20)
    await pilot.pause()
    assert len(screen.document.matches) == 1
    await pilot.press("escape", "escape")
    await pilot.pause()


async def test_a_denied_edit_keeps_its_diff_live_and_after_lathe_c(
    fake_api: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = project / "big.py"
    target.write_text("".join(f"line {i}\n" for i in range(1, 31)))
    fake_api.load(_scenario(target))
    app = real_app(fake_api, project, [])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("edit big")
        await _answer(app, pilot, "1")
        await _answer(app, pilot, "3")
        await wait_until(pilot, lambda: not app.turn_running)
        await pilot.pause()
        assert len(fake_api.requests) == 3  # the deny ended the turn
        await _check_views(app, pilot)
        session: Any = app.session
        await session.close()
    assert "LINE TWO" in target.read_text() and "NEW LINE" not in target.read_text()
    for key, value in fake_env(fake_api).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    set_trusted(project)
    resumed = make_real_app(parse_args(["-c"]), project)
    async with resumed.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: resumed.session is not None)
        await wait_until(pilot, lambda: len(_blocks(resumed)) == 3)
        await pilot.pause()
        blocks = _blocks(resumed)
        # The line numbers are the file's: the engine found the edit in it.
        assert "@@ -1,5 +1,5 @@" in blocks["e1"].state.diff
        assert "@@ -4,7 +4,14 @@" in blocks["e2"].state.diff
        await _check_views(resumed, pilot)


def test_an_edit_the_file_no_longer_shows_is_rebuilt_from_its_strings(tmp_path: Path) -> None:
    from tools.files.recorded_input import UNKNOWN_HUNK, recorded_edit_diff

    target = tmp_path / "a.py"
    target.write_text("changed since\n")
    diff = recorded_edit_diff(str(target), "old\n", "new 1\nnew 2\n", True)
    # No made-up line numbers: the file cannot place the edit any more.
    assert UNKNOWN_HUNK in diff and "@@ -" not in diff
    assert "-old" in diff and "+new 2" in diff
    created = recorded_edit_diff(str(tmp_path / "gone.py"), "", "first\n", True)
    assert "@@ -0,0 +1 @@" in created and "+first" in created
