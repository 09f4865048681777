"""Keys that arrive in one read (a burst, or a busy moment) are applied in arrival order
(black-box round 2, F5): editing keys are not overtaken by the letters that follow them."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events

from tests.tui.conftest import SIZE, make_app


def _burst(app: Any, keys: list[str]) -> None:
    """Post every key at once, as the terminal thread does with one read, without waiting."""
    for key in keys:
        character = " " if key == "space" else key if len(key) == 1 else None
        app.post_message(events.Key(key, character))


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["a", "b", "c", "left", "Z"], "abZc"),
        (["a", "b", "c", "d", "backspace", "backspace", "X", "Y"], "abXY"),
        (
            [*"fix the tpyo", "backspace", "backspace", "backspace", "backspace", *"typo"],
            "fix the typo",
        ),
        (["a", "b", "home", "X", "end", "Y"], "XabY"),
    ],
)
async def test_a_burst_of_keys_is_applied_in_order(keys: list[str], expected: str) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        keys = ["space" if k == " " else k for k in keys]
        _burst(app, keys)
        await pilot.pause()
        await pilot.pause()
        assert app.main.prompt.text == expected
