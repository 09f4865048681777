"""app/model/tls_prefetch.py: the TLS context made on a thread at launch goes to one API client."""

from __future__ import annotations

import ssl

from app.model import tls_prefetch
from app.model.client import make_api_client


def test_the_context_made_at_launch_verifies_and_is_taken_once() -> None:
    tls_prefetch.start()
    tls_prefetch.start()  # once per process: a second call starts nothing
    context = tls_prefetch.take()
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] > 0  # the system's CA certificates are loaded
    assert tls_prefetch.take() is None


def test_without_a_prefetch_the_client_makes_its_own() -> None:
    assert tls_prefetch.take() is None
    client = make_api_client({"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    assert type(client._client).__name__ == "AsyncHttpxClientWrapper"  # the SDK's default


def test_a_prefetched_context_goes_to_the_next_client() -> None:
    tls_prefetch.start()
    client = make_api_client({"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    from anthropic import DefaultAsyncHttpxClient

    assert isinstance(client._client, DefaultAsyncHttpxClient)
    assert client.base_url == "http://127.0.0.1:9"
    assert tls_prefetch.take() is None
