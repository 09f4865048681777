"""A content-driven fake of the Messages API with one injectable fault, for both lathe and Claude Code.

Nothing is scripted by order (the two agents send different side requests), each request is read
for what it is:

- a main-loop request whose last user text is `bash:<command>` -> one Bash tool_use (the fault of
  the case, if any, applies to the first such request);
- a main-loop request whose last user message carries tool_results -> the text "done";
- a compaction request (lathe: `tool_choice: none`; Claude Code: its "detailed summary" prompt) ->
  a summary carrying SUMMARY_MARK;
- anything else -> "ok"; count_tokens -> a size estimate; HEAD -> 200.

Every /v1/messages body is checked against the API's rules (app.model.validate, with Claude Code's
system-role messages folded, tests/fakeapi/compat.py); an invalid one is recorded and gets the
API's 400, so "the request after the fault was valid" is a fact the fake saw.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from app.model import sse
from app.model.context_limit import is_summary_request, request_tokens
from app.model.scenario import Block, Turn, split_json, text_turn
from app.model.validate import RequestInvalid, validate_request
from tests.fakeapi.compat import fold_system_messages
from tests.fakeapi.server import FakeAPI, RecordedRequest, _Handler

SUMMARY_MARK = "FAKE-SUMMARY-7731"
TOO_LONG = "prompt is too long: 212345 tokens > 200000 maximum"
_CC_SUMMARY = ("detailed summary of the conversation", "create a detailed summary")


def texts_of(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict):
            if block.get("type") == "text":
                out.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                out.extend(texts_of(block.get("content", "")))
    return out


def last_user(body: dict[str, Any]) -> Any:
    users = [m for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "user"]
    return users[-1].get("content") if users else None


def user_texts(body: dict[str, Any]) -> list[str]:
    """Every user text block of the request (tool results excluded)."""
    out: list[str] = []
    for m in body.get("messages", []):
        if not isinstance(m, dict) or m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(
                str(b.get("text", ""))
                for b in content
                if isinstance(b, dict) and b.get("type") == "text"
            )
    return out


def classify(body: dict[str, Any]) -> str:
    """'summary', 'results', 'bash', 'main' or 'side'."""
    if is_summary_request(body):
        return "summary"
    content = last_user(body)
    joined = "\n".join(texts_of(content))
    if any(mark in joined for mark in _CC_SUMMARY):
        return "summary"
    if not body.get("tools"):
        return "side"
    if isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    ):
        return "results"
    if any(t.strip().startswith("bash:") for t in texts_of(content)):
        return "bash"
    return "main"


@dataclass
class Seen:
    """One accepted-or-refused /v1/messages request as the fake classified it."""

    kind: str
    status: int
    body: dict[str, Any]
    at: float
    problem: str = ""


@dataclass
class Fault:
    """What goes wrong, on the first `bash:` request unless `every` is set.

    kind: "" (none), "drop_after_tool_use", "hang" (accept, never answer), "bad_data" (one `data:`
    line that is not JSON after message_start), "too_long" (the API's 400 prompt-too-long),
    "usage" (report `input_tokens` on every main answer)."""

    kind: str = ""
    every: bool = False
    input_tokens: int = 0
    fired: int = 0


@dataclass
class State:
    seen: list[Seen] = field(default_factory=list)
    tool_ids: list[str] = field(default_factory=list)


class FaultFake(FakeAPI):
    def __init__(self, fault: Fault | None = None, tool_delay: float = 0.0) -> None:
        super().__init__()
        self.fault = fault or Fault()
        self.state = State()
        self._mu = threading.Lock()
        self._n = 0
        self.tool_delay = tool_delay
        self._server.RequestHandlerClass = _FaultHandler

    def start(self) -> FaultFake:
        super().start()
        return self

    def seen(self, kind: str | None = None) -> list[Seen]:
        with self._mu:
            return [s for s in self.state.seen if kind is None or s.kind == kind]

    def note(self, seen: Seen) -> None:
        with self._mu:
            self.state.seen.append(seen)

    def bash_turn(self, command: str) -> Turn:
        with self._mu:
            self._n += 1
            tid = f"toolu_01fault{self._n:06d}"
            self.state.tool_ids.append(tid)
        payload = {"command": command, "description": "run the case's command"}
        block = Block(
            "tool_use", split_json(json.dumps(payload)), name="Bash", id=tid, input=payload
        )
        return Turn(blocks=(block,), stop_reason="tool_use")

    def take_fault(self, kind: str) -> str:
        """The fault to apply to this request ('' for none)."""
        with self._mu:
            f = self.fault
            if not f.kind or f.kind == "usage":
                return f.kind
            applies = kind == "bash" or (f.every and kind in ("bash", "main", "results"))
            if not applies or (f.fired and not f.every):
                return ""
            f.fired += 1
            return f.kind


def summary_text() -> str:
    return (
        "<analysis>the fake's analysis</analysis>\n<summary>\n"
        f"1. Primary Request and Intent: {SUMMARY_MARK}\n2. Pending Tasks: none\n</summary>"
    )


def _drop_index(turn: Turn, model: str) -> int:
    """The event index just after the tool_use block's content_block_stop."""
    for n, (name, _data) in enumerate(sse.turn_events(turn, model=model, input_tokens=1)):
        if name == "content_block_stop":
            return n + 1
    raise AssertionError("no content_block_stop")


class _FaultHandler(_Handler):
    @property
    def ff(self) -> FaultFake:
        return self.server.fake  # type: ignore[attr-defined,no-any-return]

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        received = time.monotonic()
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        path = self.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            body: Any = json.loads(raw)
        except json.JSONDecodeError:
            body = {}
        self.ff.record(RecordedRequest(path, headers, body, 200, received))
        if path == "/v1/messages/count_tokens":
            self._json(200, {"input_tokens": max(1, len(raw) // 4)})
            return
        if path != "/v1/messages" or not isinstance(body, dict):
            self._error(404, f"Not found: POST {path}")
            return
        kind = classify(body)
        try:
            validate_request(fold_system_messages(body))
        except RequestInvalid as exc:
            self.ff.note(Seen(kind, 400, body, received, str(exc)))
            self._error(400, str(exc))
            return
        fault = self.ff.take_fault(kind)
        model = str(body.get("model", "fake"))
        tokens = request_tokens(body)
        if fault == "too_long":
            self.ff.note(Seen(kind, 400, body, received, TOO_LONG))
            self._error(400, TOO_LONG)
            return
        self.ff.note(Seen(kind, 200, body, received, fault))
        if kind == "summary":
            turn = text_turn(summary_text())
        elif kind == "bash":
            command = next(
                t.strip().removeprefix("bash:")
                for t in texts_of(last_user(body))
                if t.strip().startswith("bash:")
            )
            turn = self.ff.bash_turn(command)
        elif kind == "results":
            turn = text_turn("done")
        else:
            turn = text_turn("ok")
        if fault == "usage" and kind in ("bash", "results", "main"):
            turn = Turn(
                blocks=turn.blocks,
                stop_reason=turn.stop_reason,
                usage={"input_tokens": self.ff.fault.input_tokens},
            )
        elif fault == "hang":
            turn = Turn(never_answer=True)
        elif fault == "drop_after_tool_use":
            turn = Turn(
                blocks=turn.blocks,
                stop_reason=turn.stop_reason,
                drop_after=_drop_index(turn, model),
            )
        elif fault == "bad_data":
            turn = Turn(blocks=turn.blocks, stop_reason=turn.stop_reason, malformed_after=1)
        if turn.never_answer:
            self._hold()
            return
        if not body.get("stream"):
            self._json(200, sse.turn_message(turn, model=model, input_tokens=tokens))
            return
        self._stream(turn, model, tokens)

    def _stream(self, turn: Turn, model: str, input_tokens: int) -> None:
        """tests/fakeapi's stream (drop and malformed faults only), except that message_delta
        carries the whole usage as the real API's does: Claude Code reads its context size from
        it, and a delta with only output_tokens reads as an almost empty context."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        try:
            for n, (name, data) in enumerate(
                sse.turn_events(turn, model=model, input_tokens=input_tokens)
            ):
                if turn.drop_after is not None and n >= turn.drop_after:
                    self._drop()
                    return
                if turn.malformed_after is not None and n >= turn.malformed_after:
                    self._chunk(sse.malformed_event())
                    break
                if name == "message_delta":
                    start = sse.turn_message(turn, model=model, input_tokens=input_tokens)
                    data = {**data, "usage": dict(start["usage"])}
                self._chunk(sse.encode(name, data))
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
