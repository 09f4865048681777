"""The `statusLine` setting in the real App: its command gets Claude Code's stdin JSON, its first
line becomes the status bar's text, and a burst of changes makes few runs (throttled)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from app.engine.events import UsageUpdated
from app.engine.status_line import StatusLineCommand, display_name
from app.tui.app import LatheApp
from app.tui.ports import EventSink, SessionPort
from tests.tui.conftest import SIZE, ScriptedSession, make_config
from widgets.status_bar import render_status

pytestmark = pytest.mark.timeout(40)


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_status_line_command_drives_the_status_bar(tmp_path: Path) -> None:
    seen = tmp_path / "inputs.jsonl"
    command = f'cat >> "{seen}"; echo >> "{seen}"; printf "\\033[32mmy line\\033[0m\\nsecond\\n"'
    config = make_config()

    async def factory(sink: EventSink) -> SessionPort:
        return ScriptedSession(
            app,
            status_line=command,
            project_dir=str(tmp_path),
            transcript_path=str(tmp_path / "t.jsonl"),
        )

    app = LatheApp(config, session_factory=factory)
    async with app.run_test(size=SIZE):
        await until(lambda: app.main.status_bar.info.custom == "\x1b[32mmy line\x1b[0m")
        text = render_status(app.main.status_bar.info).plain
        assert text.startswith("my line") and "default" in text and "second" not in text
        first = json.loads(seen.read_text().splitlines()[0])
        assert first["session_id"] == "sess-1"
        assert first["model"] == {"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"}
        assert first["workspace"] == {"current_dir": str(tmp_path), "project_dir": str(tmp_path)}
        assert first["transcript_path"] == str(tmp_path / "t.jsonl")
        assert {"version", "output_style", "cost", "cwd"} <= set(first)
        for i in range(20):  # a burst of usage updates
            app.handle_engine_event(UsageUpdated(10 * i, i, 0, 0, 0.01 * i))
        await until(lambda: '"total_cost_usd": 0.19' in seen.read_text())
        await asyncio.sleep(0.4)
        runs = app.status_line.runs  # type: ignore[attr-defined]
        assert 2 <= runs <= 4, runs  # throttled to one run per 300 ms, the newest state last


async def test_a_hanging_command_is_killed_at_its_time_limit(tmp_path: Path) -> None:
    lines: list[str] = []
    runner = StatusLineCommand(
        "sleep 30", lines.append, cwd=str(tmp_path), env={"LATHE_STATUS_LINE_TIMEOUT_MS": "200"}
    )
    runner.changed({"a": 1})
    await until(lambda: runner.error is not None, timeout=5)
    assert "timed out" in (runner.error or "") and lines == []
    runner.changed({"a": 1})  # nothing changed: no run
    await asyncio.sleep(0.05)
    assert runner.runs == 1


def test_display_names() -> None:
    assert display_name("claude-opus-4-1-20250805") == "Opus 4.1"
    assert display_name("claude-sonnet-4-6") == "Sonnet 4.6"
    assert display_name("demo") == "demo"


async def test_idle_notification_fires_after_a_turn_when_the_prompt_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.config.hooks import HookSource, parse_hook_sources
    from app.hooks.runner import CommandHookRunner

    monkeypatch.setenv("LATHE_IDLE_NOTIFY_MS", "150")
    out = tmp_path / "notified.jsonl"
    hooks = {
        "Notification": [
            {
                "matcher": "idle_prompt",
                "hooks": [{"type": "command", "command": f"cat >> {out}; echo >> {out}"}],
            }
        ]
    }
    config = parse_hook_sources([HookSource("user", "/u/settings.json", hooks)], True)
    runner = CommandHookRunner(
        config,
        session_id="sess-1",
        transcript_path=str(tmp_path / "t.jsonl"),
        cwd=str(tmp_path),
        project_dir=str(tmp_path),
        permission_mode=lambda: "default",
    )

    async def factory(sink: EventSink) -> SessionPort:
        return ScriptedSession(app, hooks=runner)

    app = LatheApp(make_config(), session_factory=factory)
    async with app.run_test(size=SIZE):
        await until(lambda: app.session is not None)
        await asyncio.sleep(0.3)
        assert not out.exists()  # no turn yet: nothing to wait on
        app.submit_prompt("hello")
        await until(lambda: out.exists() and out.read_text().strip() != "")
        data = json.loads(out.read_text().splitlines()[0])
        assert data["hook_event_name"] == "Notification"
        assert data["notification_type"] == "idle_prompt"
        assert data["message"] == "Claude is waiting for your input"
        await asyncio.sleep(0.4)
        assert len(out.read_text().strip().splitlines()) == 1  # once per wait
