"""Real MCP servers for the tests: the demo server over stdio and over streamable HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.mcp.config import ServerSpec

SERVER = Path(__file__).parent / "servers" / "demo_server.py"


def stdio_spec(name: str = "demo", mode: str = "stdio", marker: str = "", **env: str) -> ServerSpec:
    """The demo server over stdio; `marker` (ignored by the server) lets a test find its process."""
    args = (str(SERVER), mode, marker) if marker else (str(SERVER), mode)
    return ServerSpec(name, "stdio", "test", sys.executable, args, env)


def new_marker() -> str:
    return f"marker-{uuid.uuid4().hex}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_listening(port: int, proc: subprocess.Popen[bytes], limit: float = 15.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the HTTP MCP server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the HTTP MCP server did not start listening")


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    """The demo server over streamable HTTP on 127.0.0.1; yields its URL."""
    port = _free_port()
    log = (tmp_path / "http-server.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _wait_listening(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        log.close()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes; /proc tells them apart on Linux.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"


def server_pids(marker: str) -> list[int]:
    """Processes whose command line contains `marker` (each test passes its own unique marker)."""
    pids: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline and str(SERVER) in cmdline and pid_alive(int(entry.name)):
            pids.append(int(entry.name))
    return pids
