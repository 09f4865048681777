"""The programs the start-up bench runs, and the API fake they talk to.

Each client is a command line plus the environment and home folder it needs to start straight into
work (no onboarding, no trust question) against the fake: lathe in three ways (`python -m app`,
`uv run lathe`, an installed `lathe`), and Claude Code when its binary is there. Claude Code is not
part of the repository; install it outside it, e.g.
`npm install --prefix /work/cc @anthropic-ai/claude-code@2.1.332`, whose native binary is
`node_modules/@anthropic-ai/claude-code-linux-x64/claude` (it needs no node), and point
LATHE_BENCH_CLAUDE at it (default /work/cc/claude).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.pane_watch import PaneWatch
from tests.tui.tmux_driver import HEIGHT, ROOT, WIDTH, Tmux

MODEL = "claude-sonnet-4-6"
CC_KEY = "sk-ant-bench-key-0000000000"
DEFAULT_CLAUDE = "/work/cc/claude"


def claude_binary() -> str | None:
    path = os.environ.get("LATHE_BENCH_CLAUDE", DEFAULT_CLAUDE)
    return path if path and os.access(path, os.X_OK) else None


class Fake:
    """The API fake in its own process, so serving 2,000 chunks never competes with the bench's
    own polling for one interpreter; requests are read back with their arrival times."""

    def __init__(self, root: Path) -> None:
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.fakeapi",
                "--port",
                "0",
                "--accept-system-messages",
                "--script-model",
                MODEL,
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if "listening on" not in line:
            raise RuntimeError(f"the API fake did not start: {line!r}")
        self.url = line.split("listening on", 1)[1].strip()

    def _call(self, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, method="POST" if data else "GET"
        )
        request.add_header("content-type", "application/json")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def load(self, scenario: dict[str, Any]) -> None:
        self._call("/_fake/script", scenario)

    def requests(self) -> list[dict[str, Any]]:
        return list(self._call("/_fake/requests"))

    def main_requests(self, since: int) -> list[dict[str, Any]]:
        """The requests for the bench's model after the first `since` requests."""
        return [
            r
            for r in self.requests()[since:]
            if isinstance(r.get("body"), dict) and r["body"].get("model") == MODEL
        ]

    def stop(self) -> None:
        self._proc.terminate()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


@dataclass
class Client:
    name: str
    argv: list[str]
    env: dict[str, str]
    home: Path
    repo: Path
    prompt_shown: str = ""  # what the screen shows once the input is ready for typing
    extra: dict[str, str] = field(default_factory=dict)


class Pane(Tmux):
    """A tmux pane running any command (the test driver's `start_lathe` runs only lathe)."""

    def start(self, argv: list[str], cwd: Path, env: Mapping[str, str]) -> None:
        script = self.workdir / f"{self.socket}.sh"
        lines = ["#!/bin/sh", "unset COLUMNS LINES"]
        lines += [f"export {k}={shlex.quote(v)}" for k, v in env.items()]
        lines.append(f"cd {shlex.quote(str(cwd))}")
        lines.append("exec " + " ".join(shlex.quote(a) for a in argv))
        script.write_text("\n".join(lines) + "\n")
        script.chmod(0o755)
        self._tmux(
            "new-session", "-d", "-s", "main", "-x", str(WIDTH), "-y", str(HEIGHT), str(script)
        )
        self._watch: PaneWatch | None = None

    def seen(self, text: str, timeout: float = 60.0) -> float:
        """When `text` first showed, read by a control-mode client (bench/pane_watch.py); with
        LATHE_BENCH_POLL=capture by the old `capture-pane` poll every 3 ms (to compare the two)."""
        if os.environ.get("LATHE_BENCH_POLL") == "capture":
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if text in self.screen():
                    return time.monotonic()
                time.sleep(0.003)
            raise AssertionError(
                f"timed out waiting for {text!r}; the screen was:\n{self.screen()}"
            )
        if self._watch is None:
            self._watch = PaneWatch(self.socket, self.target)
        return self._watch.wait_for(text, timeout)

    def kill(self) -> None:
        if getattr(self, "_watch", None) is not None:
            assert self._watch is not None
            self._watch.close()
            self._watch = None
        super().kill()


def _base_env(home: Path, fake: Fake) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_MODEL": MODEL,
    }


def lathe_client(root: Path, fake: Fake, how: str, installed: str | None = None) -> Client:
    """lathe started as `python -m app`, `uv run lathe` or an installed `lathe`, with bytecode
    cached outside the source tree (this machine's environment forbids writing it by default)."""
    from app.permissions.trust import set_trusted

    home = root / f"lathe-{how}"
    repo = home / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    env = _base_env(home, fake) | {
        "ANTHROPIC_API_KEY": "bench",
        "LATHE_STATE_DIR": str(home / "state"),
        "LATHE_CONFIG_DIR": str(home / "config"),
        "LATHE_POLICY_FILE": str(home / "no-policy.toml"),
        "PYTHONDONTWRITEBYTECODE": "",
        "PYTHONPYCACHEPREFIX": str(root / f"pycache-{how}"),
    }
    if how == "python":
        argv = [sys.executable, "-m", "app"]
        env["PYTHONPATH"] = str(ROOT)
    elif how == "uv":
        uv = shutil.which("uv") or "uv"
        argv = [uv, "run", "--frozen", "--project", str(ROOT), "lathe"]
        env["UV_CACHE_DIR"] = os.environ.get("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv"))
    elif how == "installed" and installed:
        argv = [installed]
    else:
        raise ValueError(how)
    set_trusted(repo, True, env=env)
    return Client(f"lathe ({how})", argv, env, home, repo, "Ask lathe")


def claude_client(root: Path, fake: Fake, binary: str) -> Client:
    """Claude Code with a home that has finished onboarding, approved the key and trusted the
    folder, so it starts as it does for a user on their hundredth start."""
    home = root / "claude"
    repo = home / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    (home / ".claude").mkdir(exist_ok=True)
    state = {
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": "2.1.332",
        "numStartups": 100,
        "customApiKeyResponses": {"approved": [CC_KEY[-20:]], "rejected": []},
        "projects": {
            str(repo): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
        },
    }
    (home / ".claude.json").write_text(json.dumps(state))
    env = _base_env(home, fake) | {
        "ANTHROPIC_API_KEY": CC_KEY,
        # Never let the updater touch the binary under test.
        "DISABLE_AUTOUPDATER": "1",
    }
    return Client("Claude Code", [binary], env, home, repo, "❯")


def instant_client(root: Path, fake: Fake) -> Client:
    """The floor of the streaming clocks: bench/instant_client.py writes each delta as it comes."""
    home = root / "instant"
    home.mkdir(exist_ok=True)
    env = _base_env(home, fake) | {"ANTHROPIC_API_KEY": "bench", "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "bench.instant_client"]
    return Client("floor (instant printer)", argv, env, home, home, "ready>")


def install_lathe(root: Path) -> str | None:
    """`uv tool install` of this checkout into a private tool folder: the `lathe` a user gets.
    None when it cannot be done (no uv, or no network and an empty cache)."""
    uv = shutil.which("uv")
    if uv is None:
        return None
    tools, bins = root / "uv-tools", root / "uv-bin"
    env = os.environ | {"UV_TOOL_DIR": str(tools), "UV_TOOL_BIN_DIR": str(bins)}
    proc = subprocess.run(
        [uv, "tool", "install", "--compile-bytecode", str(ROOT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    exe = bins / "lathe"
    return str(exe) if proc.returncode == 0 and exe.exists() else None


def scratch() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="lathe-startup-bench-")


def monotonic() -> float:
    return time.monotonic()
