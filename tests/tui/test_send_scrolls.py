"""Sending a prompt while scrolled up brings the view to the end, where the prompt and its
answer appear (black-box round 2, F6)."""

from __future__ import annotations

from tests.tui.conftest import SIZE, make_app


async def test_sending_while_scrolled_up_scrolls_to_the_end() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for n in range(60):
            app.notice(f"history line {n}")
        await pilot.pause()
        conversation = app.main.conversation
        conversation.scroll_home(animate=False)
        await pilot.pause()
        assert conversation.max_scroll_y > 0 and conversation.scroll_y == 0
        await pilot.press(*"scrolled up prompt QQQ", "enter")
        for _ in range(5):
            await pilot.pause()
        assert conversation.scroll_y == conversation.max_scroll_y
        # And it follows what comes next.
        app.notice("the answer FINAL")
        for _ in range(5):
            await pilot.pause()
        assert conversation.scroll_y == conversation.max_scroll_y
