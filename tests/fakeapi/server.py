"""The fake API server: threads (http.server), HTTP/1.1 with chunked streaming bodies.

Chunked encoding matters: a stream cut mid-way then ends without the terminating chunk, which the
client sees as a broken connection (as with the real API), not as a short but complete body.

Every request is checked against the API's rules (app.model.validate) and answered with the
real error shape; every request is recorded, accepted or not. Scripted turns and faults come from
app.model.scenario (the same format as the offline model), one queue entry per accepted request.

Control endpoints for tests in other processes: GET /_fake/requests (the recorded requests as
JSON), POST /_fake/script (replace the queue with a scenario body).
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from app.model import sse
from app.model.context_limit import is_summary_request, limit_error, request_tokens, summary_turn
from app.model.scenario import DEFAULT_FINAL_TEXT, Scenario, Turn, parse_scenario, text_turn
from app.model.validate import RequestInvalid, validate_request
from tests.fakeapi.compat import fold_system_messages, is_side_request
from tests.fakeapi.web_search import UNSUPPORTED as WEB_SEARCH_UNSUPPORTED
from tests.fakeapi.web_search import search_message, web_search_tool


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any
    status: int
    # When the request arrived (time.monotonic, one clock for every process on Linux): the
    # start-up bench times a client's start to its first request with it.
    received: float = 0.0
    finished: float = 0.0  # when the answer's last byte was written (same clock)
    # When the last text delta was written: how far a client's screen is behind the stream
    # (its closing events come after it, each paced too).
    last_text: float = 0.0


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up mid-stream (an interrupt, a dropped stream) is part of the tests,
    not an error worth a traceback on stderr."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeAPI:
    def __init__(
        self,
        script: Scenario | Iterable[Turn] = (),
        *,
        port: int = 0,
        requests_log: str | Path | None = None,
        api_key: str | None = None,
        context_limit: int | None = None,
        auto_summary: bool = False,
        accept_system_messages: bool = False,
        script_model: str | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Turn] = deque()
        self.final_text = DEFAULT_FINAL_TEXT
        # The model's window (None: unlimited) and whether compaction requests are answered
        # with a generated summary; a scenario's own keys override these.
        self.context_limit = context_limit
        self.auto_summary = auto_summary
        self.load(script)
        self.requests: list[RecordedRequest] = []
        self.requests_log = Path(requests_log) if requests_log else None
        self.api_key = api_key  # when set, requests must carry it (x-api-key or Bearer)
        # Leniencies for other clients (tests/fakeapi/compat.py); off unless asked for.
        self.accept_system_messages = accept_system_messages
        self.script_model = script_model
        # Optional: answers a request by its content (None: the script's next turn). Subagents
        # run side by side, so their requests come in no fixed order.
        self.router: Callable[[Any], Turn | None] | None = None
        # False: a request offering the server-side web search tool gets the API's 400.
        self.web_search_supported = True
        self.stopping = threading.Event()
        self._server = _QuietServer(("127.0.0.1", port), _Handler)
        self._server.daemon_threads = True
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    # -- script -------------------------------------------------------------------------------
    def load(self, script: Scenario | Iterable[Turn]) -> None:
        with self._lock:
            self._queue.clear()
            if isinstance(script, Scenario):
                self._queue.extend(script.turns)
                self.final_text = script.final_text
                if script.context_limit is not None:
                    self.context_limit = script.context_limit
                if script.auto_summary:
                    self.auto_summary = True
            else:
                self._queue.extend(script)

    def enqueue(self, *turns: Turn) -> None:
        with self._lock:
            self._queue.extend(turns)

    def remaining(self) -> int:
        with self._lock:
            return len(self._queue)

    def next_turn(self) -> Turn:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return text_turn(self.final_text)

    def record(self, rec: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(rec)
            if self.requests_log is not None:
                with self.requests_log.open("a", encoding="utf-8") as f:
                    f.write(json.dumps({"path": rec.path, "status": rec.status, "body": rec.body}))
                    f.write("\n")

    def bodies(self, status: int | None = 200) -> list[Any]:
        """Recorded request bodies (by default only the accepted ones)."""
        with self._lock:
            return [r.body for r in self.requests if status is None or r.status == status]

    # -- life cycle ---------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeAPI:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def serve_forever(self) -> None:
        self._server.serve_forever(poll_interval=0.05)

    def __enter__(self) -> FakeAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fakeapi/1"

    @property
    def fake(self) -> FakeAPI:
        return self.server.fake  # type: ignore[attr-defined,no-any-return]

    def log_message(self, format: str, *args: Any) -> None:
        pass  # tests stay quiet

    # -- plain responses ----------------------------------------------------------------------
    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_fake")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str = "", retry_after: float | None = None) -> None:
        headers: dict[str, str] = {}
        if retry_after is not None:
            headers["retry-after-ms"] = str(int(retry_after * 1000))
            headers["retry-after"] = str(max(0, round(retry_after)))
        self._json(status, sse.error_body(status, message), headers)

    # -- routes -------------------------------------------------------------------------------
    def do_GET(self) -> None:
        if self.path == "/_fake/requests":
            self._json(200, [r.__dict__ for r in self.fake.requests])
        elif self.path == "/_fake/health":
            self._json(200, {"ok": True, "remaining": self.fake.remaining()})
        else:
            self._error(404, f"Not found: GET {self.path}")

    def do_POST(self) -> None:
        received = time.monotonic()
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        if self.path == "/_fake/script":
            try:
                self.fake.load(parse_scenario(json.loads(raw), source="POST /_fake/script"))
            except ValueError as exc:
                self._json(400, {"error": str(exc)})
                return
            self._json(200, {"ok": True})
            return
        path = self.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            body: Any = json.loads(raw)
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        status, problem = self._check(path, headers, body)
        rec = RecordedRequest(path, headers, body, status, received)
        self.fake.record(rec)
        if status != 200:
            self._error(status, problem)
            return
        too_long = limit_error(body, self.fake.context_limit)
        if too_long is not None:
            # Refused before any turn is consumed, as the API refuses it before the model runs.
            rec.status = 400
            self._error(400, too_long)
            return
        ws_tool = web_search_tool(body)
        if ws_tool is not None and not body.get("stream"):
            if not self.fake.web_search_supported:
                rec.status = 400
                self._error(400, WEB_SEARCH_UNSUPPORTED)
            else:
                self._json(200, search_message(body, ws_tool))
            return
        if self.fake.auto_summary and is_summary_request(body):
            turn = summary_turn(body)
        elif is_side_request(body, self.fake.script_model):
            turn = text_turn(self.fake.final_text)
        else:
            routed = self.fake.router(body) if self.fake.router is not None else None
            turn = routed if routed is not None else self.fake.next_turn()
        if turn.never_answer:
            self._hold()  # accepted, and not even a status line ever comes
            return
        if turn.error is not None:
            rec.status = turn.error
            self._error(turn.error, turn.error_message, turn.retry_after)
            return
        input_tokens = request_tokens(body)
        if not body.get("stream"):
            if turn.delay:
                time.sleep(turn.delay)  # a slow non-streamed answer (e.g. a summary request)
            self._json(200, sse.turn_message(turn, model=body["model"], input_tokens=input_tokens))
            return
        self._stream(turn, body["model"], input_tokens, rec)
        rec.finished = time.monotonic()

    def _check(self, path: str, headers: dict[str, str], body: Any) -> tuple[int, str]:
        """(200, "") for a good request, else the error's status and message (not yet sent: the
        request is recorded first, so a test that got the answer always finds the record)."""
        if path != "/v1/messages":
            return 404, f"Not found: POST {path}"
        key = self.fake.api_key
        given = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        if not given or (key is not None and given != key):
            return 401, "invalid x-api-key"
        if "anthropic-version" not in headers:
            return 400, "anthropic-version: header is required"
        try:
            validate_request(
                fold_system_messages(body) if self.fake.accept_system_messages else body
            )
        except RequestInvalid as exc:
            return 400, str(exc)
        return 200, ""

    def _stream(
        self, turn: Turn, model: str, input_tokens: int, rec: RecordedRequest | None = None
    ) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", "req_fake")
        self.end_headers()
        stopping = self.fake.stopping
        try:
            for n, (name, data) in enumerate(
                sse.turn_events(turn, model=model, input_tokens=input_tokens)
            ):
                if stopping.is_set() or (turn.drop_after is not None and n >= turn.drop_after):
                    self._drop()
                    return
                if turn.error_event_after is not None and n >= turn.error_event_after:
                    self._chunk(sse.mid_stream_error())
                    break
                if turn.stall_after is not None and n >= turn.stall_after:
                    self._hold()  # headers (and N events) sent; then silence, connection open
                    return
                if turn.malformed_after is not None and n >= turn.malformed_after:
                    self._chunk(sse.malformed_event())
                    break
                if turn.delay and n:
                    time.sleep(turn.delay)
                self._chunk(sse.encode(name, data))
                text_delta = data.get("delta", {}).get("type") == "text_delta"
                if rec is not None and name == "content_block_delta" and text_delta:
                    rec.last_text = time.monotonic()
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            # The client closed the stream (an interrupt); nothing left to answer.
            self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _hold(self) -> None:
        """Keep the connection open and send nothing until the client hangs up or the fake stops
        (a stalled server). Polling for the hang-up keeps threads from piling up."""
        self.close_connection = True
        stopping = self.fake.stopping
        while not stopping.is_set():
            try:
                readable, _, _ = select.select([self.connection], [], [], 0.05)
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    return  # the client closed its end
            except OSError:
                return

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
