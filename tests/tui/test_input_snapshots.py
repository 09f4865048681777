"""Snapshots of the input and full-view states (issue 17, input), each at 120x40 and 80x24."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.events import AssistantMessage, TurnEnded, TurnStarted
from app.execution.events import ToolFinished, ToolQueued, ToolRunning, ToolStarted
from app.tui.app import LatheApp
from tests.tui import scenes
from tests.tui.conftest import ScriptedSession, make_app, outcome

SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]

LONG_CODE = "ROUTES = {" + ", ".join(f"'r{i}': handler_{i}" for i in range(40)) + "}"
ANSWER = f"""The routes live in one dict; see [the router docs](https://example.com/router) and
<https://example.com/raw>.

```python
{LONG_CODE}
```

| Route | Handler |
|-------|---------|
| r0 | handler_0 |
| r1 | handler_1 |
"""


def answer_events() -> list[Any]:
    message = {"role": "assistant", "content": [{"type": "text", "text": ANSWER}]}
    return [
        TurnStarted("Where are the routes?"),
        AssistantMessage(message),
        TurnEnded("end_turn", "", False, "success", 1),
    ]


def bash_events(lines: int = 120) -> list[Any]:
    text = "\n".join(f"compiling module {i} of {lines}" for i in range(1, lines + 1))
    return [
        TurnStarted("Build it"),
        ToolQueued("b1", "Bash", {"command": "make all"}, "make all", False),
        ToolStarted("b1", "Bash", 999.0),
        ToolRunning("b1", "Bash", 999.0),
        ToolFinished("b1", outcome("b1", "Bash", text), 2.5),
        AssistantMessage({"role": "assistant", "content": [{"type": "text", "text": "Built."}]}),
        TurnEnded("end_turn", "", False, "success", 1),
    ]


Before = Callable[[LatheApp, Pilot[int]], Awaitable[None]]


def shot(snap_compare: Any, size: tuple[int, int], before: Before, session: bool = False) -> bool:
    app = make_app()
    if session:
        app.session = ScriptedSession(app)

    async def run_before(pilot: Pilot[int]) -> None:
        await scenes.settle(app, pilot)  # mounted and focused before the first key
        await before(app, pilot)
        await scenes.settle(app, pilot)

    return bool(snap_compare(app, terminal_size=size, run_before=run_before))


@pytest.mark.parametrize("size", SIZES)
def test_slash_popup_highlight_follows_arrows(snap_compare: Any, size: tuple[int, int]) -> None:
    async def before(app: LatheApp, pilot: Pilot[int]) -> None:
        await pilot.press("/", "down", "down", "down")

    assert shot(snap_compare, size, before)


@pytest.mark.parametrize("size", SIZES)
def test_history_popup_on_tab(snap_compare: Any, size: tuple[int, int]) -> None:
    async def before(app: LatheApp, pilot: Pilot[int]) -> None:
        for text in ("fix the theme lookup", "run the unit tests", "fix the loader"):
            app.main.prompt.load_text(text)
            await pilot.press("enter")
            await app.workers.wait_for_complete()
        await pilot.press(*"fix", "tab", "down")

    assert shot(snap_compare, size, before, session=True)


@pytest.mark.parametrize("size", SIZES)
def test_multi_line_prompt(snap_compare: Any, size: tuple[int, int]) -> None:
    async def before(app: LatheApp, pilot: Pilot[int]) -> None:
        await pilot.press(*"first line", "backslash", "enter", *"second line", "alt+enter")
        await pilot.press(*"third line", "ctrl+j", *"fourth")

    assert shot(snap_compare, size, before)


@pytest.mark.parametrize("size", SIZES)
def test_markdown_code_wraps_table_fits_links_show(
    snap_compare: Any, size: tuple[int, int]
) -> None:
    async def before(app: LatheApp, pilot: Pilot[int]) -> None:
        scenes.feed(app, answer_events())

    assert shot(snap_compare, size, before)


@pytest.mark.parametrize("size", SIZES)
def test_conversation_scrolled_from_the_prompt(snap_compare: Any, size: tuple[int, int]) -> None:
    async def before(app: LatheApp, pilot: Pilot[int]) -> None:
        for i in range(40):
            app.notice(f"notice number {i}")
        await scenes.settle(app, pilot)
        await pilot.press(*"draft", "pageup")

    assert shot(snap_compare, size, before)


@pytest.mark.parametrize("size", SIZES)
def test_full_view_with_search(snap_compare: Any, size: tuple[int, int]) -> None:
    async def before(app: LatheApp, pilot: Pilot[int]) -> None:
        scenes.feed(app, [*answer_events(), *bash_events()])
        await scenes.settle(app, pilot)
        await pilot.press(*"draft", "ctrl+o")
        await scenes.settle(app, pilot)
        await pilot.press("slash", *"module 4", "enter")
        await app.workers.wait_for_complete()
        await pilot.press("n")

    assert shot(snap_compare, size, before)


@pytest.mark.parametrize("size", SIZES)
def test_full_view_search_box_open(snap_compare: Any, size: tuple[int, int]) -> None:
    async def before(app: LatheApp, pilot: Pilot[int]) -> None:
        scenes.feed(app, answer_events())
        await scenes.settle(app, pilot)
        await pilot.press("ctrl+o")
        await scenes.settle(app, pilot)
        await pilot.press("ctrl+f", *"handler_3")

    assert shot(snap_compare, size, before)
