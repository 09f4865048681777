"""A streamed tool input nested 5,000 deep: the tool call fails as invalid input, the turn goes on,
and every request stays valid (the fake API enforces the API's rules)."""

from __future__ import annotations

from pathlib import Path

from app.model.scenario import Block, text_turn, turn_of
from app.transcript import load_transcript
from tests.support.engine import make_session


async def test_deep_streamed_tool_input(fake_api, project: Path, monkeypatch) -> None:
    (project / ".git").mkdir()
    raw = '{"file_path": ' + "[" * 5000 + "]" * 5000 + "}"
    chunks = tuple(raw[i : i + 500] for i in range(0, len(raw), 500))
    fake_api.load(
        [
            turn_of([Block("tool_use", chunks, name="Read", id="deep", input={})]),
            text_turn("recovered"),
        ]
    )
    session, _ = make_session(fake_api, project, monkeypatch=monkeypatch)
    result = await session.run_turn("go")
    await session.close()
    assert result.result_text == "recovered" and not result.is_error
    assert [r.status for r in fake_api.requests] == [200, 200]
    results = [
        b
        for m in fake_api.bodies()[-1]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert len(results) == 1 and results[0]["tool_use_id"] == "deep" and results[0]["is_error"]
    assert session.parts.transcript is not None
    assert load_transcript(session.parts.transcript.path).warnings == []
