"""A first prompt that cannot fit the window, on a real session in the TUI (tui-r4 F2): one line
that says what is too big and what to do, not a compaction that cannot run, its failure, the
advice to /compact or /clear (which cannot help) and the API's bare error. After /clear the same.
Claude Code 2.1.332 on the same fake shows one line ("Prompt is too long · the request is ~23218
tokens (limit 5000) but this conversation is only ~3247 tokens — ...")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.engine.api import EngineEvent
from tests.fakeapi.server import FakeAPI
from tests.tui import scenes
from tests.tui.test_dialog_on_real_session import real_app, wait_until
from widgets.message_blocks import NoticeBlock

WINDOW = 3000


def _notices(app: Any) -> list[str]:
    return [b.text for b in app.main.conversation.query(NoticeBlock)]


async def test_a_first_prompt_too_long_says_so_once(fake_api: FakeAPI, project: Path) -> None:
    fake_api.context_limit = WINDOW
    seen: list[EngineEvent] = []
    app = real_app(fake_api, project, seen)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        await scenes.settle(app, pilot)
        for attempt in range(2):
            app.main.prompt.text = "hi"
            await pilot.press("enter")
            await wait_until(pilot, lambda: len(_notices(app)) > 0 and not app.turn_running)
            shown = _notices(app)
            assert len(shown) == 1, shown
            line = shown[0]
            assert "Prompt is too long: the request is" in line
            assert "A conversation of one prompt cannot be compacted." in line
            assert "fewer tools or MCP servers" in line
            for wrong in ("compacting it and retrying", "Compaction failed", "/compact", "/clear"):
                assert wrong not in line
            if attempt == 0:
                app.main.prompt.text = "/clear"
                await pilot.press("enter")
                await scenes.settle(app, pilot)
                for block in list(app.main.conversation.query(NoticeBlock)):
                    await block.remove()
    assert len(fake_api.requests) == 2  # one request a prompt: nothing retried
