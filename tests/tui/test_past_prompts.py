"""F2 of the TUI round 2 report: the prompt's history (Up, and the Tab popup) reaches the prompts
of this project's earlier sessions, newest first, each once, as Claude Code recalls them; a
resumed session's prompts too; never another project's, even one whose transcript folder is the
same (two folders can share a slug). Real sessions write the transcripts (the HTTP fake of the
API behind them); the real TUI reads them after its first frame."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.cli import parse_args
from app.compose_tui import make_app
from app.model.scenario import text_turn
from app.permissions.trust import set_trusted
from app.prompt_history import past_prompts
from app.transcript import project_transcripts_dir
from tests.support.engine import fake_env, make_session
from tests.tui.conftest import SIZE

pytestmark = pytest.mark.timeout(90)


async def _session(fake: Any, folder: Path, prompts: list[str]) -> None:
    fake.load([text_turn(f"answer {i}") for i in range(len(prompts))])
    session, _ = make_session(fake, folder)
    for prompt in prompts:
        await session.run_turn(prompt)
    await session.close()


async def _until(check: Any, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.05)


async def test_earlier_sessions_prompts_newest_first_once_and_only_this_projects(
    fake_api: Any, tmp_path: Path
) -> None:
    project = tmp_path / "a" / "b"
    other = tmp_path / "a-b"  # the same transcript folder as a/b
    for folder in (project, other):
        (folder / ".git").mkdir(parents=True)
    assert project_transcripts_dir(project) == project_transcripts_dir(other)
    await _session(fake_api, project, ["do the things", "go"])
    await _session(fake_api, other, ["OTHER PROJECT SECRET"])
    await _session(fake_api, project, ["second session zebra prompt", "go"])
    assert past_prompts(project) == ["do the things", "second session zebra prompt", "go"]
    assert past_prompts(project, limit=2) == ["second session zebra prompt", "go"]
    assert past_prompts(other) == ["OTHER PROJECT SECRET"]


async def test_up_and_tab_reach_the_prompts_of_earlier_sessions_after_lathe_c(
    fake_api: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".git").mkdir()
    await _session(fake_api, project, ["do the things", "go"])
    await _session(fake_api, project, ["second session zebra prompt"])
    for key, value in fake_env(fake_api).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    set_trusted(project)
    app = make_app(parse_args(["-c"]), project)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main.prompt
        await _until(lambda: len(prompt.prompt_history) == 3)
        await pilot.press("up")
        assert prompt.text == "second session zebra prompt"  # the resumed session's own
        await pilot.press("up")
        assert prompt.text == "go"
        await pilot.press("up")
        assert prompt.text == "do the things"
        await pilot.press("up")  # the oldest: it stays
        assert prompt.text == "do the things"
        await pilot.press("down", "down", "down")
        assert prompt.text == ""
        await pilot.press(*"ze", "tab")
        await pilot.pause()
        popup = prompt.popup
        assert popup is not None and popup.kind == "history"
        assert [item.name for item in popup.items] == ["second session zebra prompt"]
        await pilot.press("tab")
        assert prompt.text == "second session zebra prompt"
