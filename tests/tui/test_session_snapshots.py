"""Snapshots of the sessions, retries and plain-words states (issue 17, tui-session's part), each
at 120x40 and 80x24: the resume picker (list, search, empty), a dropped stream taken back and
retried, a connection error in plain words, a resumed history with its markers, /clear."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.compact_prompt import SUMMARY_INTRO
from app.engine.error_words import WHAT_TO_DO
from app.engine.events import (
    AssistantMessage,
    AttemptAbandoned,
    ErrorOccurred,
    RequestStarted,
    Retrying,
    TextDelta,
    TurnEnded,
    TurnStarted,
)
from app.engine.replay import replay_events
from app.execution.texts import INTERRUPTED, INTERRUPTED_FOR_TOOL_USE, REJECT_MESSAGE
from app.tui.history import ReplayedHistory
from app.tui.ports import SessionSummary
from tests.tui import scenes
from tests.tui.conftest import make_app

SIZES = pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])

SESSIONS = [
    SessionSummary(
        "5f1c",
        "fix the login bug in auth.py: tokens expire early",
        "3 minutes ago",
        14,
        "feature-x",
    ),
    SessionSummary("9a2e", "write a readme for the project", "2 hours ago", 6, "main"),
    SessionSummary("c07d", "make the test suite faster on two cores", "5 days ago", 52, "main"),
]


def shot(
    snap_compare: Any,
    size: tuple[int, int],
    events: list[Any] | None = None,
    press: tuple[str, ...] = (),
    **cfg: Any,
) -> bool:
    app = make_app(**cfg)

    async def before(pilot: Pilot[int]) -> None:
        scenes.feed(app, events or [])
        await scenes.settle(app, pilot)
        for key in press:
            await pilot.press(key)
        await scenes.settle(app, pilot)

    return bool(snap_compare(app, terminal_size=size, run_before=before))


@SIZES
def test_resume_picker_lists_past_sessions(snap_compare: Any, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size, press=("/", *"resume", "enter"), list_sessions=lambda: SESSIONS)


@SIZES
def test_resume_picker_search(snap_compare: Any, size: tuple[int, int]) -> None:
    keys = ("/", *"resume", "enter", *"main test")
    assert shot(snap_compare, size, press=keys, list_sessions=lambda: SESSIONS)


@SIZES
def test_resume_picker_empty(snap_compare: Any, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size, press=("/", *"resume", "enter"), list_sessions=lambda: [])


PARTIAL = "I'll start by reading the config loader, then fix the lookup so that"
WHOLE = "I read the config loader and fixed the lookup: unknown themes now raise `ThemeError`."


def dropped_then_retried() -> list[Any]:
    reason = "The connection to http://127.0.0.1:8080 broke mid-answer (peer closed connection)"
    events: list[Any] = [TurnStarted("Fix the theme lookup"), RequestStarted(1, "claude")]
    events += [TextDelta(w + " ", 0) for w in PARTIAL.split(" ")]
    events += [AttemptAbandoned(1, reason, True), Retrying(1, 0.5, reason)]
    events += [RequestStarted(1, "claude")]
    events += [TextDelta(w + " ", 0) for w in WHOLE.split(" ")]
    message = {"role": "assistant", "content": [{"type": "text", "text": WHOLE}]}
    return [*events, AssistantMessage(message), TurnEnded("end_turn", WHOLE, False, "success", 1)]


@SIZES
def test_failed_attempt_replaced_by_the_retry(snap_compare: Any, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size, dropped_then_retried())


@SIZES
def test_connection_error_in_plain_words(snap_compare: Any, size: tuple[int, int]) -> None:
    refused = f"Cannot reach https://api.anthropic.com (connection refused). {WHAT_TO_DO}"
    events = [
        TurnStarted("Fix the theme lookup"),
        RequestStarted(1, "claude"),
        AttemptAbandoned(5, refused, False),
        ErrorOccurred(f"{refused} (gave up after 5 attempts)"),
        TurnEnded(None, "", True, "error_during_execution", 1),
    ]
    assert shot(snap_compare, size, events)


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


HISTORY: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            _text(SUMMARY_INTRO + "\n<summary>Fixed the theme lookup; the tests pass.</summary>")
        ],
    },
    {"role": "assistant", "content": [_text("Noted: going on from the summary.")]},
    {
        "role": "user",
        "content": [
            _text(
                "<command-message>review</command-message>\n<command-name>/review</command-name>\n"
                "<command-args>app/themes.py</command-args>"
            ),
            _text("Review app/themes.py for bugs."),
        ],
    },
    {
        "role": "assistant",
        "content": [
            _text("Running the tests first."),
            {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "pytest -q"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "b1",
                "content": REJECT_MESSAGE,
                "is_error": True,
            },
            _text(INTERRUPTED_FOR_TOOL_USE),
        ],
    },
    {"role": "user", "content": [_text("skip the tests, just read it")]},
    {"role": "assistant", "content": [_text("Reading app/themes.py")]},
    {"role": "user", "content": [_text(INTERRUPTED)]},
]


@SIZES
def test_resumed_history_with_markers(snap_compare: Any, size: tuple[int, int]) -> None:
    # As `lathe -c` hands it over: one ReplayedHistory (older blocks archived, the tail live).
    assert shot(snap_compare, size, [ReplayedHistory(tuple(replay_events(HISTORY)))])


@SIZES
def test_clear_says_what_it_does(snap_compare: Any, size: tuple[int, int]) -> None:
    events = [*scenes.prompt_and_text("Done."), TurnEnded("end_turn", "", False, "success", 1)]
    assert shot(snap_compare, size, events, press=("/", *"clear", "enter"))
