"""WebFetch hosts are normalised before domain rules apply, and the fetch connects to the host
that was judged: real decider, real pipeline, a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from app.config.loader import CliOverrides
from app.execution.pipeline import PipelineDeps, run_tool_use
from app.permissions import RuleDecider
from tests.support.permission_context import load_permission_context
from tools.base import ToolContext, ToolOptions
from tools.web.urls import UrlError, canonical_host, normalise_url
from tools.web_fetch import WebFetchTool

LOOPBACK_FORMS = [
    "127.0.0.1",
    "127.1",
    "2130706433",
    "0x7f.1",
    "0x7f000001",
    "0177.0.0.1",
    "127.000.000.001",
    "127.0.0.1.",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "127.0.0.%31",
    "%31%32%37.0.0.1",
]


@pytest.mark.parametrize("host", LOOPBACK_FORMS)
def test_every_ipv4_spelling_is_one_address(host: str) -> None:
    assert canonical_host(host) == "127.0.0.1"


@pytest.mark.parametrize(
    ("host", "canonical"),
    [
        ("Example.COM.", "example.com"),
        ("bücher.de", "xn--bcher-kva.de"),
        ("B%C3%BCCHER.de", "xn--bcher-kva.de"),
        ("XN--BCHER-KVA.de", "xn--bcher-kva.de"),
        ("[::1]", "::1"),
        ("[0:0:0:0:0:0:0:1]", "::1"),
        ("1.1.1.1.example.com", "1.1.1.1.example.com"),
    ],
)
def test_names_and_ipv6(host: str, canonical: str) -> None:
    assert canonical_host(host) == canonical


@pytest.mark.parametrize(
    "host",
    [
        "08.0.0.1",
        "256.0.0.1",
        "1.2.3.4.5",
        "127..1",
        "a b",
        "ex*ample.com",
        "%ff.com",
        "[::1%25eth0]",
    ],
)
def test_hosts_that_cannot_be_normalised_are_refused(host: str) -> None:
    with pytest.raises(UrlError):
        canonical_host(host)


def test_fetched_url_carries_the_canonical_host() -> None:
    assert normalise_url("http://0x7f.1:8080/x?y") == "http://127.0.0.1:8080/x?y"
    assert normalise_url("http://[::ffff:7f00:1]/") == "http://127.0.0.1/"
    assert normalise_url("https://Bücher.de./") == "https://xn--bcher-kva.de/"
    for bad in ("http://evil@127.0.0.1/", "http://a.com\\\\@127.0.0.1/", "http://127.0.0.1\\\\.x/"):
        with pytest.raises(UrlError):
            normalise_url(bad)


class Recorder(BaseHTTPRequestHandler):
    seen: list[tuple[str, str]] = []

    def log_message(self, format: str, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        Recorder.seen.append((self.path, self.headers.get("Host", "")))
        port = self.server.server_address[1]
        if self.path == "/to-other-host":
            location = f"http://localhost:{port}/page"
        elif self.path == "/to-same-host-other-spelling":
            location = f"http://127.1:{port}/page"
        else:
            body = b"hello from the server"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


async def _fetch(tmp_path: Path, url: str, **cli: Any) -> tuple[str, bool, bool]:
    """(result text, is_error, ran) through the real pipeline and the real rule decider."""
    pc = load_permission_context(tmp_path, CliOverrides(**cli), trusted=True)
    deps = PipelineDeps([WebFetchTool()], decider=RuleDecider(pc))
    ctx = ToolContext(
        cwd=str(tmp_path),
        project_dir=str(tmp_path),
        working_dirs=(str(tmp_path),),
        options=ToolOptions(),
    )
    block = {"type": "tool_use", "id": "w1", "name": "WebFetch"}
    block["input"] = {"url": url, "prompt": "what is it?"}
    out = await run_tool_use(block, {}, ctx, deps, lambda p: None)
    return str(out.result_block["content"]), out.is_error, out.ran


@pytest.mark.parametrize("host", LOOPBACK_FORMS)
async def test_a_deny_on_127_0_0_1_holds_for_every_spelling(
    host: str, port: int, tmp_path: Path
) -> None:
    Recorder.seen.clear()
    text, is_error, ran = await _fetch(
        tmp_path,
        f"http://{host}:{port}/page",
        disallowed_tools=("WebFetch(domain:127.0.0.1)",),
        permission_mode="bypassPermissions",
    )
    assert is_error and not ran and "denied" in text, text
    assert Recorder.seen == []


async def test_an_allowed_spelling_connects_to_the_judged_host(port: int, tmp_path: Path) -> None:
    Recorder.seen.clear()
    text, is_error, ran = await _fetch(
        tmp_path,
        f"http://0x7f.1:{port}/page",
        allowed_tools=("WebFetch(domain:127.0.0.1)",),
        permission_mode="dontAsk",
    )
    assert ran and not is_error and "hello from the server" in text, text
    assert Recorder.seen == [("/page", f"127.0.0.1:{port}")]


async def test_a_redirect_to_another_host_is_not_followed(port: int, tmp_path: Path) -> None:
    Recorder.seen.clear()
    text, is_error, ran = await _fetch(
        tmp_path,
        f"http://127.0.0.1:{port}/to-other-host",
        allowed_tools=("WebFetch(domain:127.0.0.1)",),
        permission_mode="dontAsk",
    )
    assert ran and "REDIRECT DETECTED" in text and f"localhost:{port}/page" in text
    assert [path for path, _ in Recorder.seen] == ["/to-other-host"]
    # The model asks for it again: judged again, and in dontAsk nothing allows localhost.
    text, is_error, ran = await _fetch(
        tmp_path,
        f"http://localhost:{port}/page",
        allowed_tools=("WebFetch(domain:127.0.0.1)",),
        permission_mode="dontAsk",
    )
    assert is_error and not ran
    assert [path for path, _ in Recorder.seen] == ["/to-other-host"]


async def test_a_redirect_to_the_same_host_spelled_otherwise_is_followed(
    port: int, tmp_path: Path
) -> None:
    Recorder.seen.clear()
    text, is_error, ran = await _fetch(
        tmp_path,
        f"http://127.0.0.1:{port}/to-same-host-other-spelling",
        allowed_tools=("WebFetch(domain:127.0.0.1)",),
        permission_mode="dontAsk",
    )
    assert ran and not is_error and "hello from the server" in text, text
    assert Recorder.seen[-1] == ("/page", f"127.0.0.1:{port}")
