"""One bounded HTTP GET: same-host redirects followed, cross-host ones reported, a byte cap."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from tools.web.urls import UrlError, host_of, normalise_url, same_site

MAX_REDIRECTS = 10
USER_AGENT = "lathe/0.1 (WebFetch; +https://github.com/)"
if TYPE_CHECKING:
    import httpx  # imported where a fetch runs: its package imports a CLI (rich, click)

ACCEPT = "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5"


class FetchError(Exception):
    """The fetch failed; the message is written for the model."""


@dataclass(frozen=True)
class Page:
    url: str
    status: int
    reason: str
    content_type: str
    charset: str | None
    body: bytes
    truncated: bool


@dataclass(frozen=True)
class CrossHostRedirect:
    url: str
    location: str
    status: int
    reason: str


async def fetch(url: str, *, timeout_s: float, max_bytes: int) -> Page | CrossHostRedirect:
    import httpx

    timeout = httpx.Timeout(timeout_s)
    headers = {"User-Agent": USER_AGENT, "Accept": ACCEPT}
    try:
        async with (
            asyncio.timeout(timeout_s),
            httpx.AsyncClient(follow_redirects=False, timeout=timeout, headers=headers) as client,
        ):
            current = url
            for _ in range(MAX_REDIRECTS + 1):
                _check_connects_to_judged_host(current)
                async with client.stream("GET", current) as resp:
                    if resp.is_redirect and "location" in resp.headers:
                        location = urljoin(current, resp.headers["location"])
                        if not same_site(current, location):
                            return CrossHostRedirect(
                                current, location, resp.status_code, resp.reason_phrase
                            )
                        try:
                            current = normalise_url(location)
                        except UrlError as exc:
                            raise FetchError(f"Bad redirect from {current}: {exc}") from None
                        continue
                    body, truncated = await _read_capped(resp, max_bytes)
                    return Page(
                        url=current,
                        status=resp.status_code,
                        reason=resp.reason_phrase,
                        content_type=resp.headers.get("content-type", "").split(";")[0].strip(),
                        charset=resp.charset_encoding,
                        body=body,
                        truncated=truncated,
                    )
            raise FetchError(f"Too many redirects (more than {MAX_REDIRECTS}) fetching {url}")
    except TimeoutError:
        raise FetchError(f"Timed out after {timeout_s:g}s fetching {url}") from None
    except httpx.TimeoutException:
        raise FetchError(f"Timed out after {timeout_s:g}s fetching {url}") from None
    except httpx.HTTPError as exc:
        raise FetchError(f"Failed to fetch {url}: {type(exc).__name__}: {exc}") from None


def _check_connects_to_judged_host(url: str) -> None:
    """The permission decision judged `host_of(url)`; refuse if httpx would read another host out
    of the same text (the URL is canonical by now, so the two parsers must agree)."""
    import httpx

    judged = host_of(url)
    try:
        connects = httpx.URL(url).host
    except httpx.InvalidURL as exc:
        raise FetchError(f"Refused {url}: {exc}") from None
    if not judged or connects.strip("[]").lower() != judged:
        raise FetchError(f"Refused {url}: its host reads as {connects!r}, not {judged!r}")


async def _read_capped(resp: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in resp.aiter_bytes():
        if size + len(chunk) > max_bytes:
            chunks.append(chunk[: max_bytes - size])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False
