"""A resumed successful call shows the view its tool declared live, not the model's text.

The transcript keeps a call's data only as JSON (`toolUseResult`, the hook shape); on resume each
tool rebuilds its data from it (Tool.result_from_record), so Write's "Created with 2 lines",
Edit's "Added 1, removed 1 lines" with its diff, Read's "Read 2 lines" and Bash's last output
line come back as they were drawn live (round 6, issue 13 item 5).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.engine.api import ToolCallUpdated
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.fakeapi.server import FakeAPI
from tests.support.engine import make_session

pytestmark = pytest.mark.timeout(60)


def _views(events: Any) -> dict[str, tuple[str, str, str, str]]:
    return {
        e.view.tool_use_id: (
            e.view.status,
            e.view.result.summary if e.view.result else "",
            e.view.result.kind if e.view.result else "",
            e.view.result.body if e.view.result else "",
        )
        for e in events
        if isinstance(e, ToolCallUpdated) and e.change == "finished"
    }


async def test_resumed_calls_show_their_declared_views(
    fake_api: FakeAPI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = project / "notes.txt"
    fake_api.load(
        [
            turn_of([tool_use_block("Write", {"file_path": str(notes), "content": "a\nb\n"}, "w")]),
            turn_of(
                [
                    tool_use_block(
                        "Edit",
                        {"file_path": str(notes), "old_string": "b", "new_string": "c"},
                        "e",
                    )
                ]
            ),
            turn_of([tool_use_block("Read", {"file_path": str(notes)}, "r")]),
            turn_of([tool_use_block("Bash", {"command": "echo one; echo two"}, "b")]),
            text_turn("done"),
        ]
    )
    opts = CliOptions(permission_mode="bypassPermissions")
    session, events = make_session(fake_api, project, opts=opts, monkeypatch=monkeypatch)
    await session.run_turn("write, edit, read and run")
    await session.close()
    live = _views(events.events)
    assert live["w"][:3] == ("done", "Created with 2 lines", "diff")
    assert live["e"][:3] == ("done", "Added 1, removed 1 lines", "diff")
    assert live["r"][:2] == ("done", "Read 2 lines")
    assert live["b"][:2] == ("done", "two")

    resumed_session, _ = make_session(
        fake_api, project, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    resumed = _views(resumed_session.history())
    await resumed_session.close()
    # The same summary, kind and body (the diffs, the texts) as the live views.
    assert resumed == live
