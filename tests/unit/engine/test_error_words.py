"""Connection errors name the endpoint and what to do (real SDK, real sockets, no network)."""

from __future__ import annotations

import socket

import anthropic

from app.engine.retry import classify


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def failure(base_url: str) -> BaseException:
    client = anthropic.Anthropic(base_url=base_url, api_key="x", max_retries=0, timeout=5)
    try:
        client.messages.create(
            model="m", max_tokens=1, messages=[{"role": "user", "content": "hi"}]
        )
    except anthropic.APIConnectionError as exc:
        return exc
    raise AssertionError("the request went through")


def test_refused_names_the_endpoint_and_the_setting() -> None:
    port = closed_port()
    info = classify(failure(f"http://127.0.0.1:{port}"))
    assert info.retryable
    assert info.message == (
        f"Cannot reach http://127.0.0.1:{port} (connection refused). "
        "Check your network or ANTHROPIC_BASE_URL."
    )
    assert "Connection error" not in info.message


def test_unknown_host_says_so() -> None:
    info = classify(failure("https://no-such-host.invalid"))
    assert info.message.startswith(
        "Cannot reach https://no-such-host.invalid (the host name could not be resolved)."
    )


def test_a_refused_key_says_which_setting(fake_api) -> None:  # type: ignore[no-untyped-def]
    from app.model.scenario import Turn

    fake_api.load([Turn(error=401, error_message="invalid x-api-key")])
    client = anthropic.Anthropic(base_url=fake_api.url, api_key="x", max_retries=0)
    try:
        client.messages.create(
            model="m", max_tokens=1, messages=[{"role": "user", "content": "hi"}]
        )
    except anthropic.APIStatusError as exc:
        info = classify(exc)
    else:
        raise AssertionError("the request went through")
    assert not info.retryable
    assert info.message == (
        f"API error 401: invalid x-api-key ({fake_api.url.rstrip('/')}). "
        "Check ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)."
    )
