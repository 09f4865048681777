"""WebFetch against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tools.base import ToolContext, ToolOptions
from tools.web.urls import UrlError, normalise_url, same_site
from tools.web_fetch import WebFetchTool

PAGE = (
    "<html><head><title>Test  Page</title><style>body{color:red}</style>"
    "<script>var secret = 1;</script></head><body><h1>Hello</h1>"
    "<p>Some <b>bold</b> text and a <a href='/x'>link</a>.</p><ul><li>one</li><li>two</li></ul>"
    "</body></html>"
)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(body)
        except ConnectionError:
            pass  # the timeout tests hang up on purpose

    def do_GET(self) -> None:
        port = self.server.server_address[1]
        if self.path == "/page":
            self._send(200, PAGE.encode(), "text/html; charset=utf-8")
        elif self.path == "/same":
            self._send(302, b"", "text/plain", {"Location": "/page"})
        elif self.path == "/other":
            self._send(301, b"", "text/plain", {"Location": f"http://localhost:{port}/page"})
        elif self.path == "/loop":
            self._send(302, b"", "text/plain", {"Location": "/loop"})
        elif self.path == "/big":
            self._send(200, b"word " * 200_000, "text/plain")
        elif self.path == "/slow":
            time.sleep(3)
            self._send(200, b"late", "text/plain")
        elif self.path == "/png":
            self._send(200, b"\x89PNG\r\n\x1a\n" + bytes(100), "image/png")
        elif self.path == "/json":
            self._send(200, b'{"a": 1}', "application/json")
        elif self.path == "/latin1":
            self._send(200, "caf\xe9".encode("latin-1"), "text/plain; charset=iso-8859-1")
        else:
            self._send(404, b"<html><body><p>nothing here</p></body></html>", "text/html")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def make_ctx(tmp_path: Path, **options: float) -> ToolContext:
    return ToolContext(
        cwd=str(tmp_path),
        project_dir=str(tmp_path),
        working_dirs=(str(tmp_path),),
        options=ToolOptions(**options),  # type: ignore[arg-type]
    )


async def fetch(ctx: ToolContext, url: str, prompt: str = "what is it?") -> tuple[str, bool]:
    tool = WebFetchTool()
    parsed = tool.parse_input({"url": url, "prompt": prompt})
    check = await tool.validate_input(parsed, ctx)
    if not check.ok:
        return check.message, True
    result = await tool.call(parsed, ctx, None, {}, lambda p: None)  # type: ignore[arg-type]
    return str(tool.to_result_content(result.data)), result.is_error


async def test_html_becomes_markdown_with_prompt_header(server: str, tmp_path: Path) -> None:
    text, is_error = await fetch(make_ctx(tmp_path), f"{server}/page", "list the items")
    assert not is_error
    assert text.startswith("Prompt: list the items\n")
    assert "Title: Test Page" in text
    assert "# Hello" in text and "**bold**" in text and "[link](/x)" in text
    assert "- one\n- two" in text
    assert "secret" not in text and "color:red" not in text


async def test_same_host_redirect_followed(server: str, tmp_path: Path) -> None:
    text, is_error = await fetch(make_ctx(tmp_path), f"{server}/same")
    assert not is_error and "# Hello" in text and f"URL: {server}/page" in text


async def test_cross_host_redirect_reported_not_followed(server: str, tmp_path: Path) -> None:
    text, is_error = await fetch(make_ctx(tmp_path), f"{server}/other", "p")
    assert not is_error
    assert text.startswith("REDIRECT DETECTED")
    port = server.rsplit(":", 1)[1]
    assert f"Redirect URL: http://localhost:{port}/page" in text
    assert "Status: 301" in text and "# Hello" not in text


async def test_redirect_loop_is_an_error(server: str, tmp_path: Path) -> None:
    text, is_error = await fetch(make_ctx(tmp_path), f"{server}/loop")
    assert is_error and "Too many redirects" in text


async def test_size_cap(server: str, tmp_path: Path) -> None:
    text, is_error = await fetch(make_ctx(tmp_path, web_fetch_max_bytes=5000), f"{server}/big")
    assert not is_error
    assert "cut at the 5000-byte limit" in text and "Size: 5000 bytes" in text


async def test_long_page_truncated_for_the_model(server: str, tmp_path: Path) -> None:
    text, _ = await fetch(make_ctx(tmp_path), f"{server}/big")
    assert "[Content truncated: showing" in text and len(text) < 45_000


async def test_timeout(server: str, tmp_path: Path) -> None:
    text, is_error = await fetch(make_ctx(tmp_path, web_fetch_timeout_s=0.3), f"{server}/slow")
    assert is_error and "Timed out after 0.3s" in text


async def test_http_errors_binary_json_and_charset(server: str, tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    text, is_error = await fetch(ctx, f"{server}/missing")
    assert is_error and "404" in text and "nothing here" in text
    text, is_error = await fetch(ctx, f"{server}/png")
    assert not is_error and "binary (image/png)" in text
    text, _ = await fetch(ctx, f"{server}/json")
    assert '{"a": 1}' in text
    text, _ = await fetch(ctx, f"{server}/latin1")
    assert "café" in text


async def test_connection_refused_is_a_clear_error(tmp_path: Path) -> None:
    text, is_error = await fetch(make_ctx(tmp_path), "http://127.0.0.1:9/")
    assert is_error and "Failed to fetch" in text


def test_url_rules() -> None:
    assert normalise_url("http://example.com/a?b=1") == "https://example.com/a?b=1"
    assert normalise_url("http://example.com") == "https://example.com/"
    assert normalise_url("http://127.0.0.1:8000/x") == "http://127.0.0.1:8000/x"
    assert normalise_url("http://localhost/x") == "http://localhost/x"
    for bad in (
        "ftp://example.com",
        "example.com",
        "https://",
        "https://u:p@example.com/",
        "file:///etc/passwd",
        "https://exa mple.com",
        "x" * 3000,
    ):
        with pytest.raises(UrlError):
            normalise_url(bad)
    # `www.` is another host: its redirect is handed back to be judged again.
    assert not same_site("https://example.com/a", "https://www.example.com/b")
    assert same_site("http://example.com/a", "https://example.com/b")
    assert same_site("http://127.0.0.1:1/a", "http://127.1:1/b")
    assert not same_site("https://example.com/", "https://evil.com/")
    assert not same_site("http://127.0.0.1:1/", "http://127.0.0.1:2/")


async def test_declarations(tmp_path: Path) -> None:
    tool = WebFetchTool()
    parsed = tool.parse_input({"url": "https://Docs.Python.org/3/", "prompt": "x"})
    assert tool.permission_subject(parsed) == "https://Docs.Python.org/3/"
    assert tool.permission_kind == "url"
    assert tool.is_read_only(parsed) and tool.is_concurrency_safe(parsed)
    text, is_error = await fetch(make_ctx(tmp_path), "not a url")
    assert is_error and "Invalid URL" in text


async def test_side_query_answers_the_prompt_from_the_page(server: str, tmp_path: Path) -> None:
    from dataclasses import replace

    asked: list[str] = []

    async def side_query(prompt: str) -> str:
        asked.append(prompt)
        return "The list has two items: one and two."

    ctx = replace(make_ctx(tmp_path), side_query=side_query)
    text, is_error = await fetch(ctx, f"{server}/page", "list the items")
    assert not is_error
    assert "The list has two items: one and two." in text
    assert "Title: Test Page" in text and "URL: " in text
    # The small model saw the page as Markdown, and the prompt.
    assert "- one\n- two" in asked[0] and "list the items" in asked[0]


async def test_side_query_failure_falls_back_to_the_page(server: str, tmp_path: Path) -> None:
    from dataclasses import replace

    async def failing(prompt: str) -> str:
        raise RuntimeError("429 rate limited")

    text, is_error = await fetch(replace(make_ctx(tmp_path), side_query=failing), f"{server}/page")
    assert not is_error and "- one\n- two" in text
