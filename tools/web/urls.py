"""Which URLs WebFetch accepts, and how it rewrites them before fetching.

Every host is put in one canonical form before a domain rule sees it, and the fetch goes to that
same form, so what is judged is what is connected to: IPv4 in any spelling a resolver accepts
(`127.1`, `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.000.000.001`) becomes dotted decimal, an
IPv6-mapped IPv4 address becomes the IPv4 address, IPv6 is compressed, names are lower-case,
percent-decoded, IDNA-encoded (punycode) and lose a trailing dot. A host that cannot be put in
that form is refused.
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from urllib.parse import unquote, urlsplit, urlunsplit

MAX_URL_LENGTH = 2000
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


class UrlError(ValueError):
    """The URL cannot be fetched; the message is written for the model."""


_NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*")
_NUMERIC_LABEL = re.compile(r"(0[xX][0-9A-Fa-f]*|[0-9]+)")


@lru_cache(maxsize=1024)
def canonical_host(raw: str) -> str:
    """The one form of a URL's host (no brackets around IPv6). Raises UrlError when `raw` cannot
    be read as exactly one host."""
    try:
        host = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise UrlError(f"The host {raw!r} is not valid percent-encoded UTF-8.") from None
    if host.startswith("[") or ":" in host:
        return _ipv6(host.removeprefix("[").removesuffix("]"), raw)
    host = host.lower()
    if host.endswith("."):
        host = host[:-1]
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise UrlError(f"The host {raw!r} is not a valid international name: {exc}") from None
    if not _NAME.fullmatch(host):
        raise UrlError(f"The host {raw!r} is not a host name.")
    labels = host.split(".")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):
        # As URL parsers and inet_aton read it: a number as the last label makes an IPv4 address.
        return _ipv4(labels, raw)
    return host


def _ipv6(text: str, raw: str) -> str:
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        raise UrlError(f"The host {raw!r} is not a valid IPv6 address.") from None
    if address.scope_id:
        raise UrlError(f"The host {raw!r} has an IPv6 zone, which WebFetch does not fetch.")
    mapped = address.ipv4_mapped
    return str(mapped) if mapped is not None else address.compressed


def _ipv4(labels: list[str], raw: str) -> str:
    numbers: list[int] = []
    for label in labels:
        if not _NUMERIC_LABEL.fullmatch(label):
            raise UrlError(f"The host {raw!r} is neither a host name nor an IPv4 address.")
        try:
            if label[:2] in ("0x", "0X"):
                value = int(label[2:] or "0", 16)
            elif len(label) > 1 and label.startswith("0"):
                value = int(label, 8)
            else:
                value = int(label)
        except ValueError:
            raise UrlError(f"The host {raw!r} is not a valid IPv4 address.") from None
        numbers.append(value)
    if len(numbers) > 4 or any(n > 255 for n in numbers[:-1]):
        raise UrlError(f"The host {raw!r} is not a valid IPv4 address.")
    last_bytes = 5 - len(numbers)
    if numbers[-1] >= 256**last_bytes:
        raise UrlError(f"The host {raw!r} is not a valid IPv4 address.")
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n << (8 * (3 - i))
    return str(ipaddress.IPv4Address(value))


def netloc_of(host: str, port: int | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return shown if port is None else f"{shown}:{port}"


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
    if "\\" in parts.netloc:
        raise UrlError(f"Invalid URL {url!r}: a backslash in the host.")
    host = canonical_host(_raw_host(parts.netloc))
    scheme = parts.scheme
    if scheme == "http" and not is_local_host(host):
        scheme = "https"
    netloc = netloc_of(host, parts.port)
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def _raw_host(netloc: str) -> str:
    """The host as written (urlsplit's `hostname` lower-cases it and keeps percent-escapes)."""
    host = netloc.rpartition("@")[2]
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.partition(":")[0]


def host_of(url: str) -> str:
    """The canonical host of `url`, or "" when it has none that can be normalised."""
    try:
        netloc = urlsplit(url).netloc
        return canonical_host(_raw_host(netloc)) if netloc else ""
    except (ValueError, UrlError):
        return ""


def _site(url: str) -> tuple[str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port
    if port is None or (scheme, port) in (("http", 80), ("https", 443)):
        port = None
    return canonical_host(_raw_host(parts.netloc)), port


def same_site(a: str, b: str) -> bool:
    """Whether a redirect from `a` to `b` stays on the very host that was judged (the same
    canonical host and port). Any other host, `www.` added or removed too, is for a domain rule
    to judge again, so the redirect is handed back to the model instead of followed."""
    try:
        return _site(a) == _site(b)
    except (ValueError, UrlError):
        return False
