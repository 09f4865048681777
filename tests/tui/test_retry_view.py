"""A response whose stream broke is taken back on screen: the engine says the attempt was
abandoned (AttemptAbandoned), the TUI replaces its partial answer with one dimmed "failed attempt;
retrying" block, and the retried answer is shown once. Real Session, real SDK, the HTTP fake."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.engine.api import AttemptAbandoned, EngineEvent, Retrying, TurnEnded
from app.model.scenario import Block, Turn, text_turn
from tests.tui.conftest import SIZE
from tests.tui.test_dialog_on_real_session import real_app, wait_until
from widgets.failed_attempt import FailedAttemptBlock
from widgets.message_blocks import AssistantBlock, NoticeBlock

ANSWER = "The answer begins here and goes on to the end."


def broken_then_whole() -> list[Turn]:
    # message_start, ping, content_block_start, then deltas: cut after the second delta.
    broken = Turn(
        blocks=(Block("text", ("The answer ", "begins here", " and goes on")),), drop_after=5
    )
    return [broken, text_turn(ANSWER)]


async def test_a_dropped_stream_is_replaced_not_repeated(fake_api: Any, project: Path) -> None:
    fake_api.load(broken_then_whole())
    seen: list[EngineEvent] = []
    app = real_app(fake_api, project, seen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("answer me")
        await wait_until(pilot, lambda: any(isinstance(e, TurnEnded) for e in seen))
        await pilot.pause()
        kinds = [type(e) for e in seen if isinstance(e, AttemptAbandoned | Retrying)]
        assert kinds == [AttemptAbandoned, Retrying]
        abandoned = next(e for e in seen if isinstance(e, AttemptAbandoned))
        assert abandoned.attempt == 1 and abandoned.retrying
        # Plain words: the endpoint it was talking to, not the SDK's "Connection error."
        assert abandoned.reason.startswith(f"The connection to {fake_api.url.rstrip('/')} broke"), (
            abandoned.reason
        )
        conversation = app.main.conversation
        answers = list(conversation.query(AssistantBlock))
        for block in answers:
            await block.settle()
        # The retried answer once; the partial one is gone as an answer.
        assert [b.markdown_text for b in answers] == [ANSWER]
        [failed] = list(conversation.query(FailedAttemptBlock))
        assert failed.label == "failed attempt; retrying"
        assert failed.text.startswith("The answer begins here")
        # In order: the failed attempt, the retry notice, then the answer.
        order = [b for b in conversation.live_blocks if b is failed or b in answers]
        assert order == [failed, answers[0]]
        assert any("Retrying in" in b.text for b in conversation.query(NoticeBlock))


async def test_the_last_failed_attempt_is_labelled_without_retrying(
    fake_api: Any, project: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("LATHE_MAX_RETRIES", "0")
    fake_api.load(broken_then_whole())
    seen: list[EngineEvent] = []
    app = real_app(fake_api, project, seen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("answer me")
        await wait_until(pilot, lambda: any(isinstance(e, TurnEnded) for e in seen))
        await pilot.pause()
        assert not [e for e in seen if isinstance(e, Retrying)]
        [failed] = list(app.main.conversation.query(FailedAttemptBlock))
        assert failed.label == "failed attempt"
        assert not list(app.main.conversation.query(AssistantBlock))


async def test_every_block_of_the_attempt_goes_but_its_notices_stay() -> None:
    from app.engine.api import Notice, RequestStarted, TextDelta, TurnStarted
    from app.execution.events import ToolFinished, ToolQueued
    from app.execution.texts import STREAMING_FALLBACK
    from tests.tui import scenes
    from tests.tui.conftest import make_app, outcome
    from widgets.message_blocks import UserBlock
    from widgets.tool_block import ToolBlock

    app = make_app()
    events = [
        TurnStarted("look"),
        RequestStarted(1, "m"),
        TextDelta("Reading ", 0),
        TextDelta("a.txt first.", 0),
        ToolQueued("r1", "Read", {"file_path": "a.txt"}, "a.txt", True),
        Notice("PreToolUse hook: checked", "info"),
        ToolFinished(
            "r1",
            outcome(
                "r1", "Read", STREAMING_FALLBACK, is_error=True, synthetic="streaming_fallback"
            ),
            0.0,
        ),
        AttemptAbandoned(1, "broke", True),
    ]
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, events)
        await scenes.settle(app, pilot)
        conversation = app.main.conversation
        kinds = [type(b).__name__ for b in conversation.live_blocks]
        assert kinds == ["UserBlock", "FailedAttemptBlock", "NoticeBlock"]
        [failed] = list(conversation.query(FailedAttemptBlock))
        assert failed.text == "Reading a.txt first." and failed.tools == ("Read a.txt",)
        assert not list(conversation.query(ToolBlock)) and not app.router.tool_blocks
        assert [b.text for b in conversation.query(UserBlock)] == ["look"]
