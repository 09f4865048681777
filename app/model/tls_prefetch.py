"""The TLS context of the API client, made on a thread while lathe starts.

Loading the system's CA certificates (OpenSSL's `load_verify_locations`, about 25 ms of CPU)
happens when the SDK's HTTP client is built, on the path to the first request. OpenSSL does it
without holding the GIL, so a thread started at launch does it on the other core while the main
thread imports lathe; the client then gets that context (`verify=`), made by the same function
httpx2 would have called (httpcore2's default context: SSL_CERT_FILE and SSL_CERT_DIR honoured).
Anything that goes wrong leaves the client to make its own, as before.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

_lock = threading.Lock()
_thread: threading.Thread | None = None
_context: ssl.SSLContext | None = None


def _make() -> None:
    global _context
    try:
        from httpcore2._ssl import default_ssl_context

        _context = default_ssl_context()
    except Exception:  # an unusable CA store: the client reports it as it always did
        _context = None


def start() -> None:
    """Begin making the context (once per process)."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_make, name="lathe-tls-context", daemon=True)
            _thread.start()


def take(timeout: float = 5.0) -> ssl.SSLContext | None:
    """The context start() made (waiting for it), once; None when start() was not called or it
    failed, and for every later caller (each client gets a context of its own)."""
    global _thread, _context
    with _lock:
        thread, _thread = _thread, None
    if thread is None:
        return None
    thread.join(timeout)
    if thread.is_alive():
        return None
    context, _context = _context, None
    return context
