"""ToolProgress.fraction has a real producer: an MCP server's progress notifications with a
total (app/mcp/connection.py -> bridge.mcp_progress). A real session runs a real MCP server's
tool against the HTTP fake of the API; the engine's views carry the fraction, and the panel the
TUI draws from them shows the bar."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.compose import build_session
from app.engine.options import EngineOptions
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.fakeapi.server import FakeAPI
from tests.support.engine import Collector, fake_env
from widgets.progress_panel import ProgressPanel

pytestmark = pytest.mark.timeout(90)
SERVER = Path(__file__).parents[1] / "mcp" / "servers" / "progress_server.py"


async def test_an_mcp_tools_progress_with_a_total_fills_the_bar(
    fake_api: FakeAPI, project: Path
) -> None:
    fake_api.load(
        [
            turn_of([tool_use_block("mcp__progress__steps", {"count": 4}, "m1")]),
            text_turn("done"),
        ]
    )
    events = Collector()
    options = EngineOptions(
        allowed_tools=("mcp__progress__steps",),
        mcp_servers=({"progress": {"command": sys.executable, "args": [str(SERVER)]}},),
    )
    setup = build_session(
        options,
        interactive=False,
        cwd=project,
        env=fake_env(fake_api, MCP_TIMEOUT="30000"),
        sink=events,
        trusted=True,
    )
    session = setup.session
    try:
        await session.start_mcp()
        result = await session.run_turn("work")
        assert result.subtype == "success"
    finally:
        await session.close()
    [done] = events.calls("finished")
    assert done.status == "done", done.result
    progressed = events.calls("progressed")
    assert [v.fraction for v in progressed] == [0.25, 0.5, 0.75, 1.0]
    assert [v.progress_text for v in progressed][-1] == "step 4 of 4"
    # What the TUI's router does with these views (app/tui/event_router.py): the panel's bar.
    panel = ProgressPanel(clock=lambda: 0.0, tick_s=None)
    panel.queued("m1", "mcp__progress__steps", "steps")
    panel.started("m1", 0.0)
    filled = []
    for view in progressed:
        panel.progressed("m1", view.progress_text, "", view.fraction)
        drawn = panel.render()
        assert f"{view.fraction * 100:3.0f}%" in drawn.plain.splitlines()[1]
        # The bar's filled part is the cells drawn in the "done" colour.
        filled.append(sum(s.end - s.start for s in drawn.spans if s.style == "lathe.ok"))
    assert filled == [3, 6, 9, 12]  # of BAR_WIDTH = 12 cells


def test_progress_without_a_total_has_no_bar() -> None:
    from app.mcp.bridge import mcp_progress

    assert mcp_progress(3, None, None).fraction is None
    assert mcp_progress(3, None, None).text == "3"
    assert mcp_progress(3, 0, "warming up").fraction is None  # a zero total says nothing
    assert mcp_progress(12, 10, None).fraction == 1.0  # a server overshooting stays in range
    assert mcp_progress(1, 4, None).text == "1/4"
