"""Starting lathe or Claude Code in a throwaway home against a FaultFake, and reading what is left.

Each agent runs in its own session (process group) so the harness can signal the agent's pid alone
(as a terminal or a supervisor would) and then look for survivors by a marker in `ps`.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

API_KEY = "test"
CLAUDE = Path(os.environ.get("CC_FAULTS_CLAUDE", "/work/cc/claude"))
LATHE_DIR = Path(__file__).resolve().parents[2]
AGENTS = ("lathe", "claude")


def lathe_head() -> list[str]:
    venv = LATHE_DIR / ".venv" / "bin" / "lathe"
    if venv.exists():
        return [str(venv)]
    return [shutil.which("uv") or "uv", "run", "--frozen", "--project", str(LATHE_DIR), "lathe"]


@dataclass
class Home:
    """The folders of one agent's run: a project, a HOME, and each agent's config/state."""

    root: Path
    agent: str
    extra_args: tuple[str, ...] = ()

    @property
    def proj(self) -> Path:
        return self.root / "proj"

    @property
    def home(self) -> Path:
        return self.root / "home"

    def make(self) -> Home:
        for d in (self.proj, self.home / ".claude", self.home / "lc", self.home / "ls"):
            d.mkdir(parents=True, exist_ok=True)
        return self

    def env(self, url: str, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "TERM": "xterm-256color",
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": API_KEY,
            "NO_PROXY": "127.0.0.1,localhost",
        }
        if self.agent == "claude":
            env.update(
                {
                    "CLAUDE_CONFIG_DIR": str(self.home / ".claude"),
                    "IS_SANDBOX": "1",
                    "DISABLE_AUTOUPDATER": "1",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                    "DISABLE_TELEMETRY": "1",
                }
            )
        else:
            env.update(
                {
                    "LATHE_CONFIG_DIR": str(self.home / "lc"),
                    "LATHE_STATE_DIR": str(self.home / "ls"),
                    "LATHE_POLICY_FILE": str(self.home / "no-policy.toml"),
                }
            )
        env.update(extra or {})
        return env

    def argv(self, prompt: str | None, cont: bool = False, fmt: str = "json") -> list[str]:
        head = lathe_head() if self.agent == "lathe" else [str(CLAUDE)]
        argv = [*head]
        if prompt is not None:
            argv += ["-p", prompt, "--output-format", fmt]
        if cont:
            argv.append("-c")
        return [*argv, *self.extra_args, "--permission-mode", "bypassPermissions"]

    def transcripts(self) -> list[Path]:
        base = self.home / ("ls" if self.agent == "lathe" else ".claude/projects")
        return sorted(base.rglob("*.jsonl"), key=lambda p: p.stat().st_mtime)


@dataclass
class Done:
    code: int | None
    stdout: str
    stderr: str
    seconds: float


def spawn(
    home: Home, url: str, prompt: str | None, cont: bool = False, **kw: object
) -> subprocess.Popen[str]:
    extra = kw.get("env")
    return subprocess.Popen(
        home.argv(prompt, cont),
        cwd=home.proj,
        env=home.env(url, extra if isinstance(extra, dict) else None),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def finish(proc: subprocess.Popen[str], started: float, timeout: float) -> Done:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        out, err = proc.communicate()
        return Done(None, out, err, time.monotonic() - started)
    return Done(proc.returncode, out, err, time.monotonic() - started)


def run(
    home: Home,
    url: str,
    prompt: str,
    cont: bool = False,
    timeout: float = 120.0,
    env: dict[str, str] | None = None,
) -> Done:
    started = time.monotonic()
    return finish(spawn(home, url, prompt, cont, env=env), started, timeout)


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def pids_with(marker: str) -> list[int]:
    """Live processes whose command line carries the marker (zombies excluded)."""
    out = subprocess.run(["ps", "-eo", "pid=,stat=,args="], capture_output=True, text=True).stdout
    pids = []
    for line in out.splitlines():
        parts = line.split(None, 2)
        live = len(parts) == 3 and not parts[1].startswith("Z")
        if live and marker in parts[2] and "ps -eo" not in parts[2]:
            pids.append(int(parts[0]))
    return pids


def reap(marker: str) -> int:
    """Kill what a run left behind (the harness's own cleanup); returns how many there were."""
    pids = pids_with(marker)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(pids)
