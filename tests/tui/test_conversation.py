"""The conversation's event handling and windowing, the progress panel, and the prompt widget."""

from __future__ import annotations

from app.engine.events import AssistantMessage, TextDelta, TurnEnded
from app.execution.events import ToolFinished, ToolQueued, ToolRunning, ToolStarted
from tests.tui import scenes
from tests.tui.conftest import SIZE, FixedClock, make_app, outcome
from widgets.message_blocks import AssistantBlock
from widgets.tool_block import ToolBlock


async def test_streamed_deltas_become_one_markdown_block() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, scenes.prompt_and_text())
        await scenes.settle(app, pilot)
        blocks = list(app.main.conversation.query(AssistantBlock))
        assert len(blocks) == 1
        assert "config" in blocks[0].markdown_text
        app.handle_engine_event(
            AssistantMessage({"role": "assistant", "content": [{"type": "text", "text": "Final."}]})
        )
        await scenes.settle(app, pilot)
        # The streamed text stays as it came (it may sit around tool blocks); nothing is doubled.
        assert len(list(app.main.conversation.query(AssistantBlock))) == 1
        assert "config" in blocks[0].markdown_text and blocks[0].finished


async def test_message_without_deltas_is_shown_whole() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(
            AssistantMessage({"role": "assistant", "content": [{"type": "text", "text": "Final."}]})
        )
        await scenes.settle(app, pilot)
        blocks = list(app.main.conversation.query(AssistantBlock))
        assert [b.markdown_text for b in blocks] == ["Final."]


async def test_tool_blocks_follow_tool_use_order_and_show_results() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, scenes.concurrent_tools())
        await pilot.pause()
        names = [b.state.tool_use_id for b in app.main.conversation.query(ToolBlock)]
        assert names == ["r1", "g1", "b1", "w1", "r2"]
        read = app.main.conversation.query(ToolBlock).first()
        assert read.state.status == "done" and "line one" in read.state.result_text
        assert app.main.progress.counts() == "2 running, 2 queued"


async def test_edit_diff_and_text_after_tools_starts_a_new_block() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, [*scenes.finished_edit(), TextDelta("after", 1)])
        await scenes.settle(app, pilot)
        block = app.main.conversation.query(ToolBlock).first()
        # The diff without its `--- a/...` `+++ b/...` header: the block names the file.
        assert block.state.diff.startswith("@@ ") and "+++ b/" not in block.state.diff
        assert len(app.main.conversation.query(AssistantBlock)) == 1


async def test_finished_rows_leave_the_panel_after_the_linger() -> None:
    clock = FixedClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, scenes.concurrent_tools())
        await pilot.pause()
        assert "r1" in app.main.progress.rows
        app.main.progress.prune()
        assert "r1" in app.main.progress.rows
        clock.now += 1.6
        app.main.progress.prune()
        assert "r1" not in app.main.progress.rows and "g1" in app.main.progress.rows
        app.handle_engine_event(TurnEnded("end_turn", "", False, "success", 1))
        assert app.main.progress.rows == {}
        assert not app.main.progress.has_class("-active")


async def test_long_history_keeps_few_live_widgets_and_stays_in_order() -> None:
    app = make_app(live_blocks=20)
    async with app.run_test(size=SIZE) as pilot:
        for i in range(300):
            tid = f"t{i}"
            scenes.feed(
                app,
                [
                    ToolQueued(tid, "Read", {}, f"file{i}.py", True),
                    ToolStarted(tid, "Read", 999.0),
                    ToolRunning(tid, "Read", 999.0),
                    ToolFinished(tid, outcome(tid, "Read", f"content {i}"), 0.01),
                ],
            )
        await pilot.pause()
        conv = app.main.conversation
        live = list(conv.query(ToolBlock))
        assert len(live) == 20
        assert [b.state.summary for b in live] == [f"file{i}.py" for i in range(280, 300)]
        assert conv.archived_count == 280
        assert len(conv.children) < 40
        assert conv.children[0] is conv.archive  # the archive sits above the live blocks
        conv.scroll_home(animate=False)
        await pilot.pause()
        assert conv.scroll_y == 0
        top = [conv.archive.render_line(y).text for y in range(conv.archive.size.height)]
        frozen = [line.strip() for line in top if "Read" in line]
        assert frozen[:3] == [f"● Read  file{i}.py  0.0s" for i in range(3)]
        assert len([line for line in top if "Read" in line]) == 280


async def test_a_running_block_is_never_frozen() -> None:
    app = make_app(live_blocks=2)
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(
            app,
            [
                ToolQueued("slow", "Bash", {}, "sleep 60", False),
                ToolStarted("slow", "Bash", 999.0),
                ToolRunning("slow", "Bash", 999.0),
            ],
        )
        for i in range(5):
            scenes.feed(
                app,
                [
                    ToolQueued(f"q{i}", "Read", {}, "x", True),
                    ToolFinished(f"q{i}", outcome(f"q{i}", "Read", "ok"), 0.0),
                ],
            )
        await pilot.pause()
        ids = [b.state.tool_use_id for b in app.main.conversation.query(ToolBlock)]
        assert ids[0] == "slow" and len(ids) == 6


async def test_plan_view_follows_todo_events() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(scenes.todos())
        await pilot.pause()
        plan = app.main.plan
        assert plan.has_class("-active")
        assert [i.status for i in plan.items] == ["completed", "in_progress", "pending"]


async def test_a_tool_block_shows_the_summary_its_tool_declares() -> None:
    """Agent's "N tool uses · T tokens" and Read's image line come from the tools'
    `result_summary`/`result_view`; a summary the body already holds is not repeated."""
    from rich.console import Console

    from tools.read import ReadResult
    from tools.subagent import SubagentOutcome
    from widgets.tool_block import render_tool

    report = SubagentOutcome("a1", "Explore", "The theme lookup is in app/themes.py.", 3, 12_345, 9)
    image = ReadResult("image", "/work/p.png", size_bytes=4096)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(
            app,
            [
                ToolQueued("a1", "Agent", {"description": "find", "prompt": "find"}, "find", True),
                ToolStarted("a1", "Agent", 999.0),
                ToolRunning("a1", "Agent", 999.0),
                ToolFinished("a1", outcome("a1", "Agent", report.text, data=report), 1.0),
                ToolQueued("r1", "Read", {"file_path": "/work/p.png"}, "/work/p.png", True),
                ToolStarted("r1", "Read", 999.0),
                ToolRunning("r1", "Read", 999.0),
                ToolFinished("r1", outcome("r1", "Read", "[image]", data=image), 0.1),
                ToolQueued("b1", "Bash", {"command": "echo hi"}, "echo hi", False),
                ToolStarted("b1", "Bash", 999.0),
                ToolRunning("b1", "Bash", 999.0),
                ToolFinished("b1", outcome("b1", "Bash", "hi"), 0.1),
            ],
        )
        await scenes.settle(app, pilot)
        agent, read, bash = list(app.main.conversation.query(ToolBlock))
        assert agent.state.result_summary == "3 tool uses · 12,345 tokens"
        console = Console(width=120, color_system=None)
        with console.capture() as captured:
            console.print(render_tool(agent.state, expanded=False))
        assert "3 tool uses · 12,345 tokens" in captured.get()
        assert read.state.result_text == "Read image (4 KB)" and read.state.result_summary == ""
        assert bash.state.result_summary == ""  # no data: the model's text, shown as the body
