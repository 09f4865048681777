"""The offline model: scripted turns served as SSE through the real anthropic SDK.

The scenario (format in scenario.py and SCENARIOS.md) is answered by an httpx transport plugged
into `AsyncAnthropic(http_client=...)`, so the SDK parses the same byte stream it would get from the
API and the loop above cannot tell the difference. Requests are checked against the API's rules
(validate.py) and answered in order; once the scenario is exhausted every request gets a short final
text. Scripted faults (HTTP errors with retry-after, dropped streams, mid-stream `error` events, slow
streams) behave as they would over the network, including the SDK's own retries.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import httpx2

from app.model import sse
from app.model.context_limit import is_summary_request, limit_error, request_tokens, summary_turn
from app.model.scenario import Scenario, Turn, load_scenario, text_turn
from app.model.validate import RequestInvalid, validate_request

if TYPE_CHECKING:
    from pathlib import Path

    from anthropic import AsyncAnthropic

SCRIPTED_BASE_URL = "http://scripted.lathe.invalid"


class TurnSource(Protocol):
    """Chooses the answer to one request; `body` is the decoded request."""

    def next_turn(self, body: dict[str, Any]) -> Turn: ...


def _limit_of(source: TurnSource) -> int | None:
    scenario = getattr(source, "scenario", None)
    return getattr(scenario, "context_limit", None)


def _auto_summary(source: TurnSource) -> bool:
    """A source answers compaction requests itself unless it (or its scenario) says otherwise."""
    own = getattr(source, "auto_summary", None)
    if own is not None:
        return bool(own)
    return bool(getattr(getattr(source, "scenario", None), "auto_summary", False))


class ScenarioSource:
    """Answers requests with the scenario's turns, in order, then with its final text forever."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self._next = 0
        self._lock = threading.Lock()

    @property
    def served(self) -> int:
        return self._next

    def next_turn(self, body: dict[str, Any]) -> Turn:
        with self._lock:
            if self._next < len(self.scenario.turns):
                turn = self.scenario.turns[self._next]
                self._next += 1
                return turn
        return text_turn(self.scenario.final_text)


async def _silence(read_timeout: float | None, what: str) -> None:
    """A stalled server, as httpx sees one: nothing arrives, so the read times out (or, with no
    read timeout, waits forever)."""
    if read_timeout is None:
        await anyio.sleep_forever()
        return
    await anyio.sleep(read_timeout)
    raise httpx2.ReadTimeout(f"no data for {read_timeout:g} s ({what})")


class _EventStream(httpx2.AsyncByteStream):
    def __init__(
        self, turn: Turn, model: str, input_tokens: int, read_timeout: float | None = None
    ) -> None:
        self._turn = turn
        self._model = model
        self._input_tokens = input_tokens
        self._read_timeout = read_timeout

    async def __aiter__(self) -> AsyncIterator[bytes]:
        turn = self._turn
        events = sse.turn_events(turn, model=self._model, input_tokens=self._input_tokens)
        for n, (name, data) in enumerate(events):
            if turn.drop_after is not None and n >= turn.drop_after:
                raise httpx2.RemoteProtocolError(
                    "peer closed connection without sending complete message body (scripted drop)"
                )
            if turn.error_event_after is not None and n >= turn.error_event_after:
                yield sse.mid_stream_error()
                return
            if turn.stall_after is not None and n >= turn.stall_after:
                await _silence(self._read_timeout, "scripted stall")
            if turn.malformed_after is not None and n >= turn.malformed_after:
                yield sse.malformed_event()
                return
            if turn.delay and n:
                await anyio.sleep(turn.delay)
            yield sse.encode(name, data)


def error_response(
    status: int, message: str = "", retry_after: float | None = None
) -> httpx2.Response:
    headers = {"content-type": "application/json", "request-id": "req_scripted"}
    if retry_after is not None:
        headers["retry-after-ms"] = str(int(retry_after * 1000))
        headers["retry-after"] = str(max(0, round(retry_after)))
    return httpx2.Response(status, headers=headers, json=sse.error_body(status, message))


class ScriptedTransport(httpx2.AsyncBaseTransport):
    """Answers POST /v1/messages from a TurnSource; records every request body it accepted."""

    def __init__(self, source: TurnSource) -> None:
        self.source = source
        self.requests: list[dict[str, Any]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method != "POST" or request.url.path != "/v1/messages":
            return error_response(404, f"Not found: {request.method} {request.url.path}")
        raw = await request.aread()
        try:
            body = json.loads(raw)
            validate_request(body)
        except json.JSONDecodeError as exc:
            return error_response(400, f"request body is not valid JSON: {exc.msg}")
        except RequestInvalid as exc:
            return error_response(400, str(exc))
        too_long = limit_error(body, _limit_of(self.source))
        if too_long is not None:
            return error_response(400, too_long)
        self.requests.append(body)
        if _auto_summary(self.source) and is_summary_request(body):
            turn = summary_turn(body)
        else:
            turn = self.source.next_turn(body)
        timeouts = request.extensions.get("timeout") or {}
        read_timeout = timeouts.get("read") if isinstance(timeouts, dict) else None
        if turn.never_answer:
            await _silence(read_timeout, "scripted server that never answers")
        if turn.error is not None:
            return error_response(turn.error, turn.error_message, turn.retry_after)
        input_tokens = request_tokens(body)
        model = str(body["model"])
        if not body.get("stream"):
            if any(
                fault is not None
                for fault in (
                    turn.drop_after,
                    turn.error_event_after,
                    turn.stall_after,
                    turn.malformed_after,
                )
            ):
                return error_response(529)
            return httpx2.Response(
                200, json=sse.turn_message(turn, model=model, input_tokens=input_tokens)
            )
        return httpx2.Response(
            200,
            headers={"content-type": "text/event-stream", "request-id": "req_scripted"},
            stream=_EventStream(turn, model, input_tokens, read_timeout),
        )


def make_scripted_client(
    source: TurnSource | ScriptedTransport, *, max_retries: int = 2
) -> AsyncAnthropic:
    """An AsyncAnthropic whose HTTP goes to `source` instead of the network.

    Pass a ScriptedTransport (rather than a bare source) to read its recorded requests afterwards.
    """
    from anthropic import AsyncAnthropic

    transport = source if isinstance(source, ScriptedTransport) else ScriptedTransport(source)
    return AsyncAnthropic(
        api_key="scripted-offline-model",
        base_url=SCRIPTED_BASE_URL,
        max_retries=max_retries,
        http_client=httpx2.AsyncClient(transport=transport, base_url=SCRIPTED_BASE_URL),
    )


def client_for_scenario_file(path: str | Path, *, max_retries: int = 2) -> AsyncAnthropic:
    """Load a scenario file (ScenarioError names the file and problem) and serve it."""
    return make_scripted_client(ScenarioSource(load_scenario(path)), max_retries=max_retries)
