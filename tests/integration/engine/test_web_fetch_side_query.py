"""WebFetch asks the small model about the page, through the session's own client."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from app.cli import CliOptions
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.support.engine import make_session


class Page(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        body = (
            b"<html><body><h1>Release notes</h1><p>Version 3.2 fixes the parser.</p></body></html>"
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def page_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/notes"
    server.shutdown()
    server.server_close()


async def test_web_fetch_answer_comes_from_the_small_model(
    fake_api, project: Path, page_url: str, monkeypatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_SMALL_FAST_MODEL", "claude-haiku-4-5")
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block(
                        "WebFetch",
                        {"url": page_url, "prompt": "which version fixes the parser?"},
                        "w1",
                    )
                ]
            ),
            text_turn("Version 3.2 fixes the parser."),  # the side query's answer
            text_turn("3.2 it is."),
        ]
    )
    session, _ = make_session(
        fake_api, project, opts=CliOptions(allowed_tools=["WebFetch"]), monkeypatch=monkeypatch
    )
    result = await session.run_turn("check the notes")
    assert result.result_text == "3.2 it is."
    bodies = fake_api.bodies()
    side = bodies[1]
    assert side["model"] == "claude-haiku-4-5" and not side.get("stream")
    assert "Version 3.2 fixes the parser." in side["messages"][0]["content"]
    tool_result = bodies[2]["messages"][-1]["content"][0]
    assert (
        tool_result["tool_use_id"] == "w1"
        and "Version 3.2 fixes the parser." in tool_result["content"]
    )
    assert "claude-haiku-4-5" in session.usage.by_model
