"""A resumed conversation is shown as it was left: prompts, answers and finished tool blocks."""

from __future__ import annotations

from app.engine.api import AssistantMessage, ToolCallUpdated, TurnEnded, TurnStarted
from app.engine.replay import replay_events

MESSAGES = [
    {"role": "user", "content": "read the readme"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Reading it."},
            {
                "type": "tool_use",
                "id": "t1",
                "name": "Read",
                "input": {"file_path": "/p/README.md"},
            },
        ],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1\thello"}],
    },
    {"role": "assistant", "content": [{"type": "text", "text": "It says hello."}]},
    {
        "role": "user",
        "content": [{"type": "text", "text": "<system-reminder>\nctx\n</system-reminder>"}],
    },
]


def test_replay_turns_messages_into_events() -> None:
    events = replay_events(MESSAGES)
    kinds = [type(e) for e in events]
    assert kinds == [
        TurnStarted,
        AssistantMessage,
        ToolCallUpdated,
        ToolCallUpdated,
        AssistantMessage,
        TurnEnded,
    ]
    assert events[0].prompt == "read the readme"
    queued, finished = events[2], events[3]
    assert isinstance(queued, ToolCallUpdated) and queued.change == "queued"
    assert isinstance(finished, ToolCallUpdated) and finished.change == "finished"
    assert finished.view.status == "done" and finished.view.result is not None
    assert finished.view.result.body == "1\thello"


async def test_resumed_history_renders_in_the_app() -> None:
    from tests.tui.conftest import make_app
    from widgets.message_blocks import AssistantBlock
    from widgets.tool_block import ToolBlock

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        for event in replay_events(MESSAGES):
            app.handle_engine_event(event)
        await pilot.pause()
        texts = [b.markdown_text for b in app.main.conversation.query(AssistantBlock)]
        assert texts == ["Reading it.", "It says hello."]
        assert [b.state.tool_use_id for b in app.main.conversation.query(ToolBlock)] == ["t1"]


def test_summaries_come_from_the_tools() -> None:
    from tools.read import ReadTool

    events = replay_events(MESSAGES, [ReadTool()])
    queued = next(e for e in events if isinstance(e, ToolCallUpdated))
    assert "README.md" in queued.view.title


async def test_long_history_is_archived_and_still_scrolls_to_the_start() -> None:
    from app.tui.history import ReplayedHistory
    from bench.bench_tui import _transcript
    from tests.tui.conftest import make_app
    from widgets.tool_block import ToolBlock

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        app.handle_engine_event(ReplayedHistory(tuple(replay_events(_transcript(500)))))
        await pilot.pause()
        conversation = app.main.conversation
        # Most of it is archived data, only the newest blocks are widgets.
        assert conversation.archived_count > 1000
        assert len(conversation.query(ToolBlock)) < 60
        conversation.scroll_home(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert "step 0: look at file 0" in "\n".join(
            conversation.archive.render_line(y).text for y in range(6)
        )


def test_a_replayed_compaction_boundary_claims_no_trigger() -> None:
    """The messages alone do not say whether a compaction was manual or automatic, so the
    resumed boundary must not say "(auto)" (found by the black-box attack)."""
    from app.engine.compact_prompt import SUMMARY_INTRO
    from app.engine.events import CompactionFinished
    from widgets.compaction_block import CompactionBlock

    messages = [
        {
            "role": "user",
            "content": [{"type": "text", "text": SUMMARY_INTRO + "\n<summary>s</summary>"}],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
    ]
    boundary = [e for e in replay_events(messages) if isinstance(e, CompactionFinished)]
    assert len(boundary) == 1 and boundary[0].trigger == ""
    block = CompactionBlock("", 0, 0, "s", 0.0)
    assert block.title == "✻ Conversation compacted"
    assert CompactionBlock("manual", 10, 5, "s", 1.0).title.startswith(
        "✻ Conversation compacted (manual)"
    )
