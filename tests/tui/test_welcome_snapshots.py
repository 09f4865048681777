"""The welcome line keeps its keys at every size (black-box round 3, F9): at 80 columns the key
names and the folder shorten, at 60 the keys wrap to a second line."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.tui import scenes
from tests.tui.conftest import make_app

SIZES = [(120, 40), (80, 24), (60, 20)]
FOLDER = "/tmp/attack-tui3/t3/proj"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_welcome_line_keeps_its_keys(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app(folder=FOLDER, model="claude-sonnet-4-6")

    async def before(pilot: Pilot[int]) -> None:
        await scenes.settle(app, pilot)
        lines = app.main.welcome.line(size[0] - 2).plain.split("\n")
        shown = "\n".join(lines)
        for key in ("commands", "mode", "interrupt"):
            assert key in shown, (size, shown)
        assert all(len(line) <= size[0] - 2 for line in lines)

    assert snap_compare(app, terminal_size=size, run_before=before)
