"""Connection failures in plain words: which endpoint could not be reached, why, and what to do.

The SDK's own text for every one of them is "Connection error." (and httpx's is a socket
detail); a user needs the address lathe was talking to and the one setting that changes it.
"""

from __future__ import annotations

import errno
from typing import Any

WHAT_TO_DO = "Check your network or ANTHROPIC_BASE_URL."


def endpoint_of(exc: BaseException) -> str:
    """`https://host[:port]` of the request that failed ("the API" when it is not known)."""
    for candidate in (exc, exc.__cause__, exc.__context__):
        try:
            url = getattr(candidate, "request", None).url  # type: ignore[union-attr]
        except (AttributeError, RuntimeError):  # httpx raises RuntimeError when it has none
            continue
        scheme, host = str(url.scheme), str(url.host)
        if host:
            port = url.port
            return f"{scheme}://{host}" + (f":{port}" if port else "")
    return "the API"


def _reason(exc: BaseException) -> str:
    cause: Any = exc.__cause__ or exc.__context__ or exc
    name = type(cause).__name__
    text = str(cause)
    code = _errno(cause)
    if "Timeout" in name or "timed out" in text.lower():
        return "timed out"
    if code == errno.ECONNREFUSED or "refused" in text.lower():
        return "connection refused"
    if code in (-2, -3, -5) or "name or service" in text.lower() or "nodename" in text.lower():
        return "the host name could not be resolved"
    if code in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        return "no route to the host"
    if "ssl" in text.lower() or "certificate" in text.lower():
        return "the TLS handshake failed"
    return text.strip().rstrip(".") or name


def _errno(exc: BaseException) -> int | None:
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 6:
        for arg in getattr(current, "args", ()):
            if isinstance(arg, OSError) and arg.errno is not None:
                return arg.errno
            if isinstance(arg, str) and arg.startswith("[Errno "):
                try:
                    return int(arg[7:].split("]", 1)[0])
                except ValueError:
                    pass
        if isinstance(current, OSError) and current.errno is not None:
            return current.errno
        current = current.__cause__ or current.__context__
        seen += 1
    return None


def cannot_reach(exc: BaseException) -> str:
    """ "Cannot reach https://api.anthropic.com (connection refused). Check your network or
    ANTHROPIC_BASE_URL." """
    return f"Cannot reach {endpoint_of(exc)} ({_reason(exc)}). {WHAT_TO_DO}"


def broke_mid_stream(exc: BaseException) -> str:
    detail = str(exc).strip().rstrip(".") or type(exc).__name__
    return f"The connection to {endpoint_of(exc)} broke mid-answer ({detail})"


# What to do about the API's answers that no retry can change.
_STATUS_HINTS = {
    401: "Check ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN).",
    403: "The key is not allowed to do this: check its organisation and permissions.",
    404: "Check the model name (--model, ANTHROPIC_MODEL) and ANTHROPIC_BASE_URL.",
}


def with_hint(message: str, status: int | None, exc: BaseException) -> str:
    """ "API error 401: invalid x-api-key (https://api.anthropic.com). Check ANTHROPIC_API_KEY
    (or ANTHROPIC_AUTH_TOKEN)." for the statuses a user must act on; other messages as they are."""
    hint = _STATUS_HINTS.get(status or 0)
    if hint is None:
        return message
    return f"{message.rstrip('.')} ({endpoint_of(exc)}). {hint}"
