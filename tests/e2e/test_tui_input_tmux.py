"""The real `lathe` in tmux: the new-line keys as a terminal sends them (Alt+Enter is ESC CR,
`\\`+Enter two keys), Tab keeping the focus, and the full view (Ctrl+O) and its search."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_tui_tmux import repo, send_prompt, start, tmux
from tests.fakeapi.server import FakeAPI
from tests.tui.tmux_driver import Tmux, have_tmux

pytestmark = [
    pytest.mark.skipif(not have_tmux(), reason="tmux is not installed"),
    pytest.mark.timeout(60),
]
__all__ = ["repo", "tmux"]  # the fixtures, shared with test_tui_tmux


def user_text(fake: FakeAPI, request: int = 0) -> str:
    content = fake.bodies()[request]["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, dict))


def test_new_line_keys_and_tab_keep_everything_in_the_prompt(
    fake_api: FakeAPI, repo: Path, tmux: Tmux
) -> None:
    fake_api.load([text_turn("Three lines received.")])
    start(tmux, fake_api, repo)
    tmux.type("one")
    tmux.send("M-Enter")  # ESC CR: a new line, not Enter
    tmux.type("two\\")
    tmux.wait_for("two\\")
    tmux.send("Enter")  # `\` then Enter: the backslash becomes the new line
    tmux.type("three")
    tmux.send("Tab")  # nothing to complete: the focus stays, nothing is lost
    tmux.type("four")
    screen = tmux.wait_for("threefour")
    lines = screen.splitlines()
    rows = [next(i for i, line in enumerate(lines) if word in line) for word in ("one", "two")]
    assert rows[1] == rows[0] + 1 and "two\\" not in screen
    assert fake_api.bodies() == []  # nothing was sent yet
    tmux.send("Enter")
    tmux.wait_for("Three lines received.")
    assert "one\ntwo\nthreefour" in user_text(fake_api)


def test_full_view_shows_the_whole_output_and_searches(
    fake_api: FakeAPI, repo: Path, tmux: Tmux
) -> None:
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": "seq 1 400"}, "b1")]),
            text_turn("Counted to four hundred."),
        ]
    )
    start(tmux, fake_api, repo, "--allowedTools", "Bash(seq:*)")
    send_prompt(tmux, "count")
    screen = tmux.wait_for("Counted to four hundred.")
    assert "\n│ 200" not in screen and " 200\n" not in screen  # the block shows only its tail
    tmux.type("a draft")
    tmux.send("C-o")
    tmux.wait_for("Full view")
    tmux.send("/")
    tmux.type("137")
    tmux.send("Enter")
    tmux.wait_for(
        lambda s: (
            "Match 1 of 1 for '137'" in s
            and any(re.fullmatch(r"\s*137\b[^0-9]*", x) for x in s.splitlines())
        )
    )
    tmux.send("Escape")
    tmux.wait_for(lambda s: "Full view" not in s and "a draft" in s)
    tmux.type(" goes on")  # the prompt has the focus again, the draft intact
    tmux.wait_for("a draft goes on")
