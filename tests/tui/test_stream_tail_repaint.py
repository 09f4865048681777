"""A running call's output tail in the conversation is repainted as output arrives, not only the
progress panel (review round 3, mutant N8: event_router's `_dirty_tails` mark)."""

from __future__ import annotations

from tests.tui.conftest import make_app
from tests.tui.tool_scenes import Calls
from widgets.tool_block import ToolBlock


async def test_a_running_calls_tail_is_repainted_in_the_conversation() -> None:
    calls = Calls()
    calls.queue("b1", "Bash", {"command": "make"})
    calls.start("b1", "Bash")
    calls.output("b1", "compiling-first\n")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        for event in calls.out:
            app.handle_engine_event(event)
        await pilot.pause(0.3)
        [block] = app.main.conversation.query(ToolBlock)
        assert "compiling-first" in _painted(block)
        calls.out.clear()
        calls.output("b1", "linking-second\n")
        for event in calls.out:
            app.handle_engine_event(event)
        await pilot.pause(0.3)
        assert "linking-second" in _painted(block)


def _painted(block: ToolBlock) -> str:
    """The text the block's last paint put on screen (its cached lines, not its state)."""
    strips = block.render_lines(block.region.reset_offset)
    return "\n".join(strip.text for strip in strips)
