"""WebFetch: fetch a URL, turn it into Markdown, and hand it to the model with the prompt."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import Field

from tools.base import (
    CanUseTool,
    InterruptBehavior,
    ProgressCallback,
    ReadOnlyTool,
    ResultView,
    ToolContext,
    ToolInput,
    ToolProgress,
    ToolResult,
)
from tools.decisions import ValidationResult

if TYPE_CHECKING:
    # httpx, BeautifulSoup and markdownify cost ~0.2 s to import: loaded on the first fetch only.
    from tools.web.fetch import CrossHostRedirect, Page
from tools.web.urls import UrlError, normalise_url

# Kept under the default result budget (50,000) so a page is never persisted: the model gets it
# inline, cut at a paragraph where one is near.
MAX_CONTENT_CHARS = 40_000
_META_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_\-]+)""", re.IGNORECASE)
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "+json", "+xml")


@dataclass(frozen=True)
class Fetched:
    """A page that was fetched: `text` is what the model reads (the header lines and the answer
    or the page), `shown` the person's part of it (the answer, the page, or why there is none).
    A transcript keeps Claude Code's `toolUseResult` shape (`hook_response`) to rebuild it."""

    url: str
    status: int
    reason: str
    size: int
    text: str
    shown: str
    duration_ms: int = 0

    def hook_response(self) -> dict[str, Any]:
        return {
            "bytes": self.size,
            "code": self.status,
            "codeText": self.reason,
            "result": self.shown,
            "durationMs": self.duration_ms,
            "url": self.url,
        }


def size_text(n: int) -> str:
    """A size as Claude Code 2.1.332 writes it in "Received 1.1KB (200 OK)": bytes below 1 KB,
    then KB, MB with one decimal (none when it is 0)."""
    if n < 1024:
        return f"{n} bytes"
    for unit, scale in (("KB", 1024), ("MB", 1024**2), ("GB", 1024**3)):
        value = n / scale
        if value < 1024 or unit == "GB":
            return f"{value:.1f}".removesuffix(".0") + unit
    return f"{n} bytes"  # unreachable: GB takes every size left


class WebFetchInput(ToolInput):
    url: str = Field(description="The URL to fetch content from")
    prompt: str = Field(description="The prompt to run on the fetched content")


class WebFetchTool(ReadOnlyTool[WebFetchInput]):
    name = "WebFetch"
    search_hint = "fetch web page url http download documentation internet"
    input_model = WebFetchInput
    permission_kind = "url"
    subject_field = "url"

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    def permission_subject(self, input: WebFetchInput) -> str | None:
        """The URL: `WebFetch(domain:HOST)` rules are judged against every host it may name."""
        return input.url

    def summary(self, input: WebFetchInput) -> str:
        return input.url

    def result_view(self, data: Any, is_error: bool) -> ResultView | None:
        """Claude Code's line, "Received 1.1KB (200 OK)", and the answer (or the page): not the
        header lines and instructions the model reads."""
        if isinstance(data, Fetched) and not is_error:
            line = f"Received {size_text(data.size)} ({data.status} {data.reason})".strip()
            return ResultView(line, data.shown.strip(), own_body=True)
        return super().result_view(data, is_error)

    def result_from_record(self, recorded: Any, content: str) -> Fetched | None:
        if not isinstance(recorded, Mapping) or not isinstance(recorded.get("result"), str):
            return None
        code, size = recorded.get("code"), recorded.get("bytes")
        if not isinstance(code, int) or not isinstance(size, int):
            return None
        reason = str(recorded.get("codeText", ""))
        url = str(recorded.get("url", ""))
        return Fetched(url, code, reason, size, content, recorded["result"])

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, Fetched):
            return data.text
        return super().to_result_content(data)

    async def validate_input(self, input: WebFetchInput, context: ToolContext) -> ValidationResult:
        try:
            normalise_url(input.url)
        except UrlError as exc:
            return ValidationResult.failure(str(exc), 1)
        return ValidationResult.success()

    async def call(
        self,
        input: WebFetchInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        try:
            url = normalise_url(input.url)
        except UrlError as exc:
            return ToolResult(str(exc), is_error=True)
        on_progress(ToolProgress(text=f"Fetching {url}"))
        began = time.monotonic()
        from tools.web.fetch import CrossHostRedirect, FetchError, fetch

        options = context.options
        job = asyncio.ensure_future(
            fetch(url, timeout_s=options.web_fetch_timeout_s, max_bytes=options.web_fetch_max_bytes)
        )
        stop = asyncio.ensure_future(context.abort.wait())
        try:
            await asyncio.wait({job, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if not job.done():
            job.cancel()
            return ToolResult(f"Fetching {url} was interrupted.", is_error=True)
        try:
            outcome = job.result()
        except FetchError as exc:
            return ToolResult(str(exc), is_error=True)
        if isinstance(outcome, CrossHostRedirect):
            shown = f"Redirects to {outcome.location} (not followed)"
            text = _redirect_text(outcome, input.prompt)
            page = Fetched(outcome.url, outcome.status, outcome.reason, 0, text, shown)
            return ToolResult(_timed(page, began))
        answered = await answer_from_page(
            outcome, input.prompt, options.web_fetch_max_bytes, context
        )
        if answered is None:
            answered = _page_result(outcome, input.prompt, options.web_fetch_max_bytes)
        if isinstance(answered.data, Fetched):
            return ToolResult(_timed(answered.data, began), is_error=answered.is_error)
        return answered


def _timed(page: Fetched, began: float) -> Fetched:
    ms = int((time.monotonic() - began) * 1000)
    return Fetched(page.url, page.status, page.reason, page.size, page.text, page.shown, ms)


def _fetched(page: Page, text: str, shown: str) -> Fetched:
    return Fetched(page.url, page.status, page.reason, len(page.body), text, shown)


def _redirect_text(redirect: CrossHostRedirect, prompt: str) -> str:
    return (
        "REDIRECT DETECTED: The URL redirects to a different host.\n\n"
        f"Original URL: {redirect.url}\n"
        f"Redirect URL: {redirect.location}\n"
        f"Status: {redirect.status} {redirect.reason}\n\n"
        "The redirect was not followed. To fetch the content, use WebFetch again with these "
        "parameters:\n"
        f"- url: {json.dumps(redirect.location)}\n"
        f"- prompt: {json.dumps(prompt)}"
    )


def _decode(page: Page) -> str:
    charset = page.charset
    if charset is None and page.content_type in ("text/html", "application/xhtml+xml"):
        found = _META_CHARSET.search(page.body[:4096])
        if found:
            charset = found.group(1).decode("ascii", "replace")
    try:
        return page.body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return page.body.decode("utf-8", errors="replace")


def _is_text(content_type: str) -> bool:
    return (
        not content_type
        or content_type.startswith("text/")
        or content_type == "application/xhtml+xml"
        or any(content_type.endswith(t) or content_type == t for t in _TEXT_TYPES)
    )


def _truncate(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    cut = text[:limit]
    para = cut.rfind("\n\n")
    if para > limit * 0.8:
        cut = cut[:para]
    return cut, True


def _header(page: Page, max_bytes: int) -> str:
    return (
        f"URL: {page.url}\nStatus: {page.status} {page.reason}\n"
        f"Content-Type: {page.content_type or 'unknown'}\nSize: {len(page.body)} bytes"
        + (f" (cut at the {max_bytes}-byte limit)" if page.truncated else "")
    )


def _page_text(page: Page) -> tuple[str, str]:
    """(title, text): HTML turned into Markdown, other text as it is."""
    text = _decode(page)
    if page.content_type in ("text/html", "application/xhtml+xml") or (
        not page.content_type and "<html" in text[:1000].lower()
    ):
        from tools.web.markdown import html_to_markdown

        return html_to_markdown(text)
    return "", text


def _page_result(page: Page, prompt: str, max_bytes: int) -> ToolResult:
    header = _header(page, max_bytes)
    if not _is_text(page.content_type):
        binary = (
            f"The response is binary ({page.content_type}); WebFetch shows only text and HTML "
            "pages."
        )
        return ToolResult(_fetched(page, f"{header}\n\n{binary}", binary))
    title, text = _page_text(page)
    if page.status >= 400:
        snippet, _ = _truncate(text, 1000)
        return ToolResult(
            f"Request failed with status code {page.status} {page.reason}.\n{header}\n\n{snippet}",
            is_error=True,
        )
    total = len(text)
    body, cut = _truncate(text, MAX_CONTENT_CHARS)
    lines = [f"Prompt: {prompt}", header]
    if title:
        lines.append(f"Title: {title}")
    lines.append(
        "\nNo summarising model is configured, so the page content follows as Markdown; answer "
        "the prompt from it.\n\n---\n"
    )
    body = body or "(The page has no text content.)"
    lines.append(body)
    if cut or page.truncated:
        lines.append(
            f"\n[Content truncated: showing {len(body)} of {total} characters"
            + (f"; the download stopped at {max_bytes} bytes" if page.truncated else "")
            + ".]"
        )
    return ToolResult(_fetched(page, "\n".join(lines), body))


def side_query_prompt(text: str, prompt: str) -> str:
    return (
        f"Web page content:\n---\n{text}\n---\n\n{prompt}\n\n"
        "Answer from the content above only, concisely. Quote exactly what matters (code, "
        "commands, numbers); say so plainly when the page does not answer the question."
    )


async def answer_from_page(
    page: Page, prompt: str, max_bytes: int, context: ToolContext
) -> ToolResult | None:
    """The small model's answer to `prompt` over the page, or None to fall back to the page."""
    ask = context.side_query
    if ask is None or not _is_text(page.content_type) or page.status >= 400:
        return None
    title, text = _page_text(page)
    body, _ = _truncate(text, MAX_CONTENT_CHARS)
    if not body.strip():
        return None
    job = asyncio.ensure_future(ask(side_query_prompt(body, prompt)))
    stop = asyncio.ensure_future(context.abort.wait())
    try:
        await asyncio.wait({job, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    if not job.done():
        job.cancel()
        return ToolResult("Fetching was interrupted.", is_error=True)
    try:
        answer = job.result()
    except Exception:
        return None  # the page itself is still worth returning
    if not answer.strip():
        return None
    lines = [_header(page, max_bytes)]
    if title:
        lines.append(f"Title: {title}")
    lines.append(f"\n{answer.strip()}")
    return ToolResult(_fetched(page, "\n".join(lines), answer.strip()))
