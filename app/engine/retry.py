"""Which model errors are worth another try, and how long to wait before it.

lathe makes its own retries (the SDK client is built with max_retries=0) so that every retry is
visible as an event: the UI shows "retrying in Ns" instead of a frozen spinner.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import Any

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


@dataclass(frozen=True)
class ErrorInfo:
    retryable: bool
    message: str
    status: int | None = None
    retry_after: float | None = None


def max_retries() -> int:
    try:
        return max(0, int(os.environ.get("LATHE_MAX_RETRIES", "4")))
    except ValueError:
        return 4


def backoff_delay(attempt: int, retry_after: float | None) -> float:
    """The server's retry-after when it gave one (capped), else exponential backoff with jitter."""
    if retry_after is not None:
        return max(0.0, min(retry_after, 60.0))
    try:
        base = float(os.environ.get("LATHE_RETRY_BASE_MS", "500")) / 1000
    except ValueError:
        base = 0.5
    delay: float = min(base * (2**attempt), 8.0)
    return delay * (0.75 + random.random() * 0.25)


def classify(exc: BaseException) -> ErrorInfo:
    """Map an exception from the SDK or the transport to retryable-or-not with a clear message."""
    import anthropic

    from app.engine.stream_guard import StreamFault

    if isinstance(exc, StreamFault):
        return ErrorInfo(True, str(exc))
    if isinstance(exc, anthropic.APIStatusError) and exc.status_code < 400:
        # An `error` event inside a 200 stream (overloaded mid-response): the SDK raises it as a
        # status error carrying the stream's 200, so the status says nothing; the body's error
        # type does (overloaded_error is the commonest and is transient).
        kind = _error_type(getattr(exc, "body", None))
        retryable = kind in _RETRYABLE_TYPES or "overloaded" in str(exc).lower()
        return ErrorInfo(
            retryable, f"API error mid-stream ({kind or 'error'}): {_api_message(exc)}"
        )
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        retry_after = _retry_after(exc.response.headers if exc.response is not None else {})
        from app.engine.error_words import with_hint

        text = with_hint(f"API error {status}: {_api_message(exc)}", status, exc)
        return ErrorInfo(status in RETRYABLE_STATUS, text, status, retry_after)
    if isinstance(exc, anthropic.APIConnectionError):
        from app.engine.error_words import cannot_reach

        return ErrorInfo(True, cannot_reach(exc))
    if isinstance(exc, anthropic.APIError):
        # An `error` event inside the stream (overloaded mid-response) is transient.
        kind = _error_type(getattr(exc, "body", None))
        retryable = kind in (*_RETRYABLE_TYPES, "") or "overloaded" in str(exc).lower()
        return ErrorInfo(retryable, f"API error: {exc}")
    if _is_transport_error(exc):
        from app.engine.error_words import broke_mid_stream

        return ErrorInfo(True, broke_mid_stream(exc))
    return ErrorInfo(False, f"{type(exc).__name__}: {exc}")


_RETRYABLE_TYPES = ("overloaded_error", "api_error", "rate_limit_error")


def _error_type(body: Any) -> str:
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            return str(error.get("type", ""))
    return ""


def _is_transport_error(exc: BaseException) -> bool:
    for module in ("httpx2", "httpx"):
        try:
            mod = __import__(module)
        except ImportError:
            continue
        if isinstance(exc, mod.TransportError | mod.StreamError):
            return True
    return isinstance(exc, ConnectionError | EOFError)


def _retry_after(headers: Any) -> float | None:
    try:
        value = headers.get("retry-after-ms")
        if value is not None:
            return float(value) / 1000
        value = headers.get("retry-after")
        if value is not None:
            return float(value)
    except (TypeError, ValueError):
        return None
    return None


def _api_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(getattr(exc, "message", exc))
