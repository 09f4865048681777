"""tui-r4 F5: a stream that breaks after a complete tool call. The engine keeps the response up
to its last complete block, runs the tool once and continues; the text block that was streaming
when the connection broke is not in the kept response, so it leaves the screen and the
continuation shows the sentence once (as Claude Code 2.1.332 shows it). Real Session, real SDK,
the HTTP fake."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.engine.api import EngineEvent, TextDelta, TurnEnded
from app.model.scenario import Block, Turn, text_turn
from app.tui.kept_text import kept_part
from tests.tui.conftest import SIZE
from tests.tui.test_dialog_on_real_session import real_app, wait_until
from widgets.message_blocks import AssistantBlock, NoticeBlock
from widgets.tool_block import ToolBlock

SENTENCE = "More text after the tool that keeps going for a while longer."
GLOB = Block("tool_use", ('{"pattern": "*.txt"}',), name="Glob", id="toolu_g1")


def cut_after_tool(before: tuple[Block, ...] = ()) -> list[Turn]:
    # Events 0-10: message_start, ping, "Writing.", the Glob call, then two of the last text
    # block's three deltas ("More text after the tool that keeps going for a").
    head = (Block("text", ("Writing.",)), GLOB, *before)
    cut = Block("text", ("More text after the tool ", "that keeps going for a", " while longer."))
    return [Turn(blocks=(*head, cut), drop_after=11 + 3 * len(before)), text_turn(SENTENCE)]


async def _run(fake_api: Any, project: Path, turns: list[Turn]) -> tuple[list[str], Any]:
    fake_api.load(turns)
    seen: list[EngineEvent] = []
    app = real_app(fake_api, project, seen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("write")
        await wait_until(pilot, lambda: any(isinstance(e, TurnEnded) for e in seen))
        await pilot.pause()
        conversation = app.main.conversation
        answers = list(conversation.query(AssistantBlock))
        for block in answers:
            await block.settle()
        streamed = "".join(e.text for e in seen if isinstance(e, TextDelta))
        assert "keeps going for aMore text" in streamed  # the cut fragment was on screen
        assert [b.state.name for b in conversation.query(ToolBlock)] == ["Glob"]  # ran once
        assert any("Kept the response" in b.text for b in conversation.query(NoticeBlock))
        return [b.markdown_text for b in answers], fake_api


async def test_the_cut_off_text_goes_and_the_sentence_shows_once(
    fake_api: Any, project: Path
) -> None:
    shown, fake = await _run(fake_api, project, cut_after_tool())
    assert shown == ["Writing.", SENTENCE]
    assert len(fake.requests) == 2


async def test_a_complete_text_block_after_the_tool_stays(fake_api: Any, project: Path) -> None:
    kept = Block("text", ("Found them. ",))
    shown, _ = await _run(fake_api, project, cut_after_tool((kept,)))
    assert shown == ["Writing.", "Found them. ", SENTENCE]


def test_kept_part_leaves_a_whole_message_alone() -> None:
    whole = {"content": [{"type": "tool_use"}, {"type": "text", "text": "All of it."}]}
    assert kept_part("All of it.", whole) is None
    assert kept_part("All of it. And a fragm", whole) == "All of it."
    assert kept_part("Half a sent", {"content": [{"type": "text", "text": "a"}, GLOB_USE]}) == ""
    assert kept_part("something else", whole) is None  # not its tail: left as it is


GLOB_USE = {"type": "tool_use", "id": "toolu_g1", "name": "Glob", "input": {}}
