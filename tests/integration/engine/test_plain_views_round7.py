"""Skill, TaskStop, ToolSearch, WebFetch and background Bash blocks in plain words, live and resumed, on a real
session: the texts written for the model ("Launching skill: greet", "Successfully stopped
shell: ...", the `<function>` definitions, WebFetch's header lines and instructions) stay in the
tool_results, and the screen gets what Claude Code 2.1.332 shows ("Loaded skill", "sleep 300 ·
stopped", "Received 1.1KB (200 OK)"), measured side by side in tmux on the same fake."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.engine.api import ToolCallUpdated
from app.model.scenario import Turn, text_turn, tool_use_block, turn_of
from tests.fakeapi.server import FakeAPI
from tests.support.engine import make_session

pytestmark = pytest.mark.timeout(60)

PAGE = b"<html><head><title>Demo</title></head><body><p>" + b"Some words here. " * 60 + b"</p>"
ANSWER = "The page repeats some words."
MODEL_WORDS = (
    "Launching skill",
    "Successfully stopped",
    "<function>",
    "definitions follow",
    "Status: 200",
    "Content-Type",
    "No summarising model",
    "BashOutput",
    "Full output is also written",
)


class _Page(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)


@pytest.fixture
def page_url() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/page"
    httpd.shutdown()
    httpd.server_close()


def _router(url: str) -> Any:
    """The model by content: the calls for the prompt, TaskStop once the background shell's id
    is in a result, the small model's answer for WebFetch's side query, then "done"."""
    state = {"stopped": False}

    def route(body: Any) -> Turn | None:
        messages = body.get("messages", [])
        first = json.dumps(messages[0].get("content", "")) if messages else ""
        if "Web page content:" in first:
            return text_turn(ANSWER)
        last = messages[-1].get("content") if messages else ""
        if _is_prompt(last):
            return turn_of(
                [
                    tool_use_block("Skill", {"skill": "greet"}, "s1"),
                    tool_use_block(
                        "Bash", {"command": "sleep 30", "run_in_background": True}, "b1"
                    ),
                    tool_use_block("ToolSearch", {"query": "select:Read"}, "t1"),
                    tool_use_block("WebFetch", {"url": url, "prompt": "What is it?"}, "w1"),
                ]
            )
        shell = _shell_id(last)
        if shell and not state["stopped"]:
            state["stopped"] = True
            return turn_of([tool_use_block("TaskStop", {"shell_id": shell}, "k1")])
        return text_turn("done")

    return route


def _is_prompt(content: Any) -> bool:
    if isinstance(content, str):
        return content.strip() == "go"
    blocks = [b for b in content or [] if isinstance(b, dict)]
    return not any(b.get("type") == "tool_result" for b in blocks) and any(
        str(b.get("text", "")).strip() == "go" for b in blocks
    )


def _shell_id(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    for block in content:
        text = json.dumps(block.get("content", "")) if isinstance(block, dict) else ""
        start = text.find('shell_id \\"bash_')
        if start >= 0:
            return text[start + len('shell_id \\"') :].split("\\", 1)[0]
    return ""


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


async def test_plain_views_live_and_resumed(
    fake_api: FakeAPI, project: Path, monkeypatch: pytest.MonkeyPatch, page_url: str
) -> None:
    skill = project / ".claude" / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greet\ndescription: Say hello\n---\nSay hello.\n")
    fake_api.router = _router(page_url)
    opts = CliOptions(permission_mode="bypassPermissions")
    session, events = make_session(fake_api, project, opts=opts, monkeypatch=monkeypatch)
    await session.run_turn("go")
    await session.close()
    live = _views(events.events)
    assert live["s1"] == ("done", "Loaded skill", "text", "")
    assert live["t1"] == ("done", "Loaded Read", "text", "")
    # 1,071 bytes: Claude Code's "1KB" (one decimal, ".0" dropped).
    assert len(PAGE) == 1071
    assert live["w1"] == ("done", "Received 1KB (200 OK)", "text", ANSWER)
    assert live["k1"] == ("done", "sleep 30 · stopped", "text", "")
    # tui-r4 F6: a background Bash shows its line, not the BashOutput/TaskStop instructions.
    shell = live["b1"][1].removeprefix("Running in the background (").removesuffix(")")
    assert shell.startswith("bash_") and live["b1"] == ("done", live["b1"][1], "text", "")
    shown = json.dumps(list(live.values()))
    for words in MODEL_WORDS:
        assert words not in shown, words
    # The model still read its own texts.
    sent = json.dumps(fake_api.bodies())
    assert "Launching skill: greet" in sent and "Successfully stopped shell" in sent
    assert "<function>" in sent and "Status: 200 OK" in sent

    resumed_session, _ = make_session(
        fake_api, project, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    resumed = _views(resumed_session.history())
    await resumed_session.close()
    assert resumed == live
