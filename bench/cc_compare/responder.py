"""An HTTP fake of the Messages API that answers by content, for one agent run of one case.

Both lathe and Claude Code talk to it. Claude Code's requests differ from lathe's (a trailing
`system`-role message, beta query strings, side requests such as its auto-mode security classifier),
so nothing is scripted by order: each request is read and answered for what it is.

- a main-loop request whose last user message is the prompt -> the case's tool calls (once);
- a request whose last user message carries tool_results -> a final text, and the results are kept;
- Claude Code's auto-mode classifier (a "security monitor" prompt that stops at `</block>`) ->
  "<block>yes": the fake never lets a model decide a permission, so a call that reached the
  classifier counts as not allowed by Claude Code's rules (it is recorded as such);
- anything else (titles, summaries, probes) -> a short text; count_tokens -> a token count.

It reuses tests/fakeapi's server (threads, chunked SSE through app.model.sse) by swapping in its own
request handler, so tests/fakeapi/server.py needs no change.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from app.model import sse
from app.model.scenario import Block, Turn, split_json, text_turn
from tests.fakeapi.server import FakeAPI, RecordedRequest, _Handler

PROMPT = "go"
FINAL_TEXT = "done"
SIDE_TEXT = "ok"
CLASSIFIER_VERDICT = "<block>yes"
CLASSIFIER_MARK = "security monitor for autonomous AI coding agents"


@dataclass(frozen=True)
class Call:
    """One tool call the fake model makes: the tool's name and its input."""

    tool: str
    input: dict[str, Any]


@dataclass
class ToolResult:
    tool_use_id: str
    text: str
    is_error: bool


@dataclass
class Observed:
    """What the fake saw during one run."""

    results: dict[str, ToolResult] = field(default_factory=dict)
    classifier_calls: int = 0
    side_requests: int = 0
    main_requests: int = 0
    hits: list[str] = field(default_factory=list)  # GET paths (WebFetch targets)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if block.get("type") == "text":
                    parts.append(str(block.get("text", "")))
                elif block.get("type") == "tool_result":
                    parts.append(_text_of(block.get("content", "")))
        return "\n".join(parts)
    return ""


def _system_text(body: dict[str, Any]) -> str:
    return _text_of(body.get("system", ""))


def _last_user(body: dict[str, Any]) -> Any:
    users = [m for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "user"]
    return users[-1].get("content") if users else None


def classify(body: dict[str, Any]) -> str:
    """'classifier', 'tool_results', 'prompt' or 'side' for one /v1/messages body."""
    if CLASSIFIER_MARK in _system_text(body) or "</block>" in (body.get("stop_sequences") or []):
        return "classifier"
    content = _last_user(body)
    if isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    ):
        return "tool_results"
    if not body.get("tools"):
        return "side"
    texts = (
        [content]
        if isinstance(content, str)
        else [b.get("text", "") for b in content or [] if isinstance(b, dict)]
    )
    if any(isinstance(t, str) and t.strip() == PROMPT for t in texts):
        return "prompt"
    return "side"


class CaseResponder(FakeAPI):
    """A FakeAPI whose answers come from the request's content and one case's calls."""

    def __init__(self, calls: list[Call]) -> None:
        super().__init__()
        self.calls = calls
        self.observed = Observed()
        self.call_ids = [f"toolu_01cccmp{i:04d}" for i in range(len(calls))]
        self._served_calls = False
        self._obs_lock = threading.Lock()
        self._server.RequestHandlerClass = _ContentHandler

    def start(self) -> CaseResponder:
        super().start()
        return self

    def __enter__(self) -> CaseResponder:
        return self.start()

    def answer(self, body: dict[str, Any]) -> Turn:
        kind = classify(body)
        with self._obs_lock:
            if kind == "classifier":
                self.observed.classifier_calls += 1
                return text_turn(CLASSIFIER_VERDICT)
            if kind == "tool_results":
                for block in _last_user(body):
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        tid = str(block.get("tool_use_id", ""))
                        self.observed.results[tid] = ToolResult(
                            tid, _text_of(block.get("content", "")), bool(block.get("is_error"))
                        )
                return text_turn(FINAL_TEXT)
            if kind == "prompt" and not self._served_calls:
                self._served_calls = True
                self.observed.main_requests += 1
                return self.tool_turn()
            self.observed.side_requests += 1
            return text_turn(SIDE_TEXT)

    def tool_turn(self) -> Turn:
        blocks = tuple(
            Block(
                "tool_use",
                split_json(json.dumps(c.input)),
                name=c.tool,
                id=tid,
                input=c.input,
            )
            for c, tid in zip(self.calls, self.call_ids, strict=True)
        )
        return Turn(blocks=blocks, stop_reason="tool_use")

    def hit(self, path: str) -> None:
        with self._obs_lock:
            self.observed.hits.append(path)


class _ContentHandler(_Handler):
    @property
    def responder(self) -> CaseResponder:
        return self.server.fake  # type: ignore[attr-defined,no-any-return]

    def do_GET(self) -> None:
        # Any GET that is not the fake's own control endpoint is a fetch of a target URL.
        if self.path.startswith("/_fake/"):
            super().do_GET()
            return
        self.responder.hit(self.path)
        data = b"<html><body>cc-compare fetched</body></html>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        path = self.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            body: Any = json.loads(raw)
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        self.responder.record(RecordedRequest(path, headers, body, 200))
        if path == "/v1/messages/count_tokens":
            self._json(200, {"input_tokens": max(1, len(raw) // 4)})
            return
        if path != "/v1/messages" or not isinstance(body, dict):
            self._error(404, f"Not found: POST {path}")
            return
        turn = self.responder.answer(body)
        model = str(body.get("model", "fake"))
        if not body.get("stream"):
            self._json(200, sse.turn_message(turn, model=model, input_tokens=len(raw) // 4))
            return
        self._stream(turn, model, len(raw) // 4)
