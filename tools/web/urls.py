"""Which URLs WebFetch accepts, and how it rewrites them before fetching."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit, urlunsplit

MAX_URL_LENGTH = 2000
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


class UrlError(ValueError):
    """The URL cannot be fetched; the message is written for the model."""


def is_local_host(host: str) -> bool:
    if host in LOCAL_HOSTS or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def normalise_url(raw: str) -> str:
    """Validate `raw` and upgrade http to https (loopback hosts excepted: nothing to intercept)."""
    url = raw.strip()
    if not url:
        raise UrlError("The URL is empty.")
    if len(url) > MAX_URL_LENGTH:
        raise UrlError(f"The URL is too long ({len(url)} characters; at most {MAX_URL_LENGTH}).")
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        _ = parts.port
    except ValueError as exc:
        raise UrlError(f"Invalid URL {url!r}: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise UrlError(
            f"Invalid URL {url!r}: only http and https URLs can be fetched"
            + (f" (got {parts.scheme}:)." if parts.scheme else "; add https://.")
        )
    if not host:
        raise UrlError(f"Invalid URL {url!r}: it has no host name.")
    if parts.username or parts.password:
        raise UrlError("URLs containing a user name or password are refused.")
    if any(c.isspace() for c in url):
        raise UrlError(f"Invalid URL {url!r}: it contains white space.")
    scheme = parts.scheme
    if scheme == "http" and not is_local_host(host):
        scheme = "https"
    return urlunsplit((scheme, parts.netloc, parts.path or "/", parts.query, ""))


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def _site(url: str) -> tuple[str, int | None]:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = parts.port
    if port is None or (parts.scheme, port) in (("http", 80), ("https", 443)):
        port = None
    return host, port


def same_site(a: str, b: str) -> bool:
    """Whether a redirect from `a` to `b` stays on the same host (`www.` added or removed is ok)."""
    try:
        return _site(a) == _site(b)
    except ValueError:
        return False
