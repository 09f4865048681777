"""The TUI on a real Session against the HTTP fake enforcing a context limit: a long scripted
session completes with automatic compactions and no error, the meter follows, /compact and
/context work from the prompt."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from app.cli import CliOptions
from app.compose import build_session
from app.engine.events import CompactionFinished, EngineEvent, Notice
from app.execution.interfaces import DenyingPrompter
from app.model.scenario import text_turn
from tests.support.engine import fake_env
from tests.support.long_script import long_turns, make_files
from tests.tui.conftest import make_app
from widgets.compaction_block import CompactionBlock
from widgets.message_blocks import NoticeBlock

WINDOW = 40_000


def real_app(fake: Any, repo: Path, seen: list[EngineEvent]) -> Any:
    (repo / ".git").mkdir(exist_ok=True)
    (repo / "ctx.toml").write_text(f"[context]\nwindow = {WINDOW}\n")
    app = make_app(live_blocks=400)

    async def factory(sink: Any) -> Any:
        def both(event: EngineEvent) -> None:
            seen.append(event)
            sink(event)

        setup = build_session(
            CliOptions(settings=str(repo / "ctx.toml")),
            interactive=True,
            cwd=repo,
            env=fake_env(fake),
            sink=both,
            prompter=DenyingPrompter(),
            trusted=True,
        )
        return setup.session

    app.session_factory = factory
    return app


async def wait_until(pilot: Any, check: Any, timeout: float = 60) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, "timed out"
        await pilot.pause(0.05)


def errors(app: Any) -> list[str]:
    return [b.text for b in app.main.conversation.query(NoticeBlock) if b.level == "error"]


async def test_long_session_in_the_tui_compacts_and_completes(fake_api, project) -> None:
    files = make_files(project, 4, 200)
    fake_api.context_limit = WINDOW
    fake_api.auto_summary = True
    fake_api.load(long_turns(50, files))
    seen: list[EngineEvent] = []
    app = real_app(fake_api, project, seen)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("review every module")
        await wait_until(pilot, lambda: app.turn_running)
        await wait_until(pilot, lambda: not app.turn_running, timeout=120)
        assert errors(app) == []
        assert {r.status for r in fake_api.requests} == {200}
        boundaries = list(app.main.conversation.query(CompactionBlock))
        assert len(boundaries) >= 2 and all(b.trigger == "auto" for b in boundaries)
        assert len(boundaries) == sum(isinstance(e, CompactionFinished) for e in seen)
        left = app.main.status_bar.info.context_left
        assert left is not None and 0 < left < 1
        last = app.session.last_result
        assert last.subtype == "success" and last.result_text.startswith("All modules reviewed")


async def test_compact_and_context_commands(fake_api, project) -> None:
    fake_api.load([text_turn("hello"), text_turn("<summary>We said hello.</summary>")])
    seen: list[EngineEvent] = []
    app = real_app(fake_api, project, seen)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        assert app.main.status_bar.info.context_left is not None  # shown from the start
        app.submit_prompt("say hello")
        await wait_until(pilot, lambda: app.session.last_result is not None)
        await wait_until(pilot, lambda: not app.turn_running)
        before = app.main.status_bar.info.context_left
        await pilot.click("PromptInput")
        for ch in "/compact keep it short":
            await pilot.press("space" if ch == " " else ch)
        await pilot.press("enter")
        await wait_until(pilot, lambda: list(app.main.conversation.query(CompactionBlock)))
        await wait_until(pilot, lambda: not app.turn_running)
        block = app.main.conversation.query_one(CompactionBlock)
        assert block.trigger == "manual" and block.summary == "We said hello."
        sent = fake_api.bodies()[-1]["messages"][-1]["content"][-1]["text"]
        assert "keep it short" in sent
        # The meter was recomputed for the new conversation (the summary replaced two messages).
        assert app.main.status_bar.info.context_left != before
        app.submit_prompt("/context")
        await pilot.pause()
        shown = [e.text for e in seen if isinstance(e, Notice)] + [
            b.text for b in app.main.conversation.query(NoticeBlock)
        ]
        assert any(t.startswith("Context: ") and "Tool results" in t for t in shown)
        assert "1 compaction(s)" in next(t for t in shown if t.startswith("Context: "))


async def test_boundary_summary_expands_on_click() -> None:
    app = make_app()
    summary = "\n".join(f"line {i}" for i in range(10))
    async with app.run_test(size=(100, 30)) as pilot:
        app.handle_engine_event(CompactionFinished("auto", 150_000, 12_000, summary, 0.5))
        await pilot.pause()
        block = app.main.conversation.query_one(CompactionBlock)
        assert not block.expanded and block.size.height < 10
        await pilot.click(CompactionBlock)
        await pilot.pause()
        assert block.expanded and block.size.height >= 11


async def test_compact_is_refused_without_a_session_or_during_a_turn() -> None:
    from tests.tui.conftest import ScriptedSession

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        app.run_slash_command("/compact")
        await pilot.pause()
        assert any("nothing to compact" in t for t in _notices(app))
        session = ScriptedSession(app)
        session.compact = _never_called  # type: ignore[attr-defined]
        app.session = session
        app.turn_running = True
        app.run_slash_command("/compact now")
        await pilot.pause()
        assert any("A turn is running" in t for t in _notices(app))


async def _never_called(instructions: str) -> None:
    raise AssertionError("compact ran during a turn")


def _notices(app: Any) -> list[str]:
    return [b.text for b in app.main.conversation.query(NoticeBlock)]
