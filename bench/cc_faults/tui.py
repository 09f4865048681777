"""The interactive TUIs in tmux (a private tmux server per run): closing the pane during a Bash
call (c) and `/compact` typed in the TUI (g)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

from app.permissions.trust import set_trusted
from bench.cc_faults.agents import Home, pids_with, reap
from bench.cc_faults.evidence import invalid, last_main
from bench.cc_faults.fake import SUMMARY_MARK, FaultFake, user_texts


def _seed_claude(h: Home) -> None:
    """Claude Code's first-run screens (theme, trust, custom key, bypass warning) answered."""
    config = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "bypassPermissionsModeAccepted": True,
        "customApiKeyResponses": {"approved": ["test"], "rejected": []},
        "projects": {str(h.proj): {"hasTrustDialogAccepted": True}},
    }
    (h.home / ".claude" / ".claude.json").write_text(json.dumps(config))


class Pane:
    def __init__(self, h: Home, url: str) -> None:
        self.h = h
        self.sock = f"ccf{os.getpid()}{int(time.monotonic() * 1000) % 100000}"
        env = h.env(url)
        if h.agent == "claude":
            _seed_claude(h)
        else:
            # The same answer as Claude Code's seeded trust: the folder is trusted.
            set_trusted(h.proj, env=env)
        cmd = " ".join(shlex.quote(a) for a in h.argv(None))
        envs = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        self._tmux(
            "new-session", "-d", "-s", "t", "-x", "160", "-y", "45",
            f"cd {shlex.quote(str(h.proj))} && exec env -i {envs} {cmd}",
        )  # fmt: skip

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.sock, "-f", "/dev/null", *args], capture_output=True, text=True
        )
        return done.stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "t")

    def wait_for(self, text: str, timeout: float = 30) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if text in self.screen():
                return True
            time.sleep(0.2)
        return False

    def type(self, line: str) -> None:
        self._tmux("send-keys", "-t", "t", "-l", line)
        time.sleep(0.3)
        self._tmux("send-keys", "-t", "t", "Enter")

    def kill_pane(self) -> None:
        self._tmux("kill-pane", "-t", "t")

    def close(self) -> None:
        self._tmux("kill-server")


def _ready(p: Pane, agent: str) -> bool:
    # Both draw a prompt box; wait until the screen settles on something typed-into-able.
    return p.wait_for("bypass permissions" if agent == "claude" else "Ask lathe", 40)


def kill_pane(agent: str, reps: int) -> tuple[str, float]:
    """(c) the TUI runs `bash -c 'sleep & sleep'`; the tmux pane is closed; survivors?"""
    left = started = 0
    for i in range(reps):
        fake = FaultFake().start()
        h = Home(Path(tempfile.mkdtemp(prefix=f"ccf-c-{agent}-")), agent).make()
        p = Pane(h, fake.url)
        try:
            _ready(p, agent)
            time.sleep(1.0)
            marker = f"300.{os.getpid()}9{i}"
            p.type(f"bash:bash -c 'sleep {marker} & sleep {marker}'")
            end = time.monotonic() + 30
            while time.monotonic() < end and len(pids_with(f"sleep {marker}")) < 2:
                time.sleep(0.1)
            started += len(pids_with(f"sleep {marker}")) >= 2
            p.kill_pane()
            time.sleep(3.0)
            left += reap(f"sleep {marker}")
        finally:
            p.close()
            fake.stop()
    return f"{reps}x: Bash started {started}, children left {left}", float(
        left * 10 + (reps - started) * 100
    )


def compact(agent: str, instructions: str) -> tuple[str, bool]:
    """(g, TUI) one exchange, `/compact [instructions]` typed, then one more prompt."""
    fake = FaultFake().start()
    h = Home(Path(tempfile.mkdtemp(prefix=f"ccf-gt-{agent}-")), agent).make()
    p = Pane(h, fake.url)
    try:
        _ready(p, agent)
        time.sleep(1.0)
        p.type("bash:echo GT0")
        end = time.monotonic() + 30
        while time.monotonic() < end and not fake.seen("results"):
            time.sleep(0.2)
        time.sleep(1.0)
        p.type(f"/compact {instructions}".strip())
        end = time.monotonic() + 40
        while time.monotonic() < end and not fake.seen("summary"):
            time.sleep(0.2)
        time.sleep(3.0)
        summaries = fake.seen("summary")
        steer = bool(instructions) and any(
            instructions in "\n".join(user_texts(s.body)) for s in summaries
        )
        p.type("say GT2")
        end = time.monotonic() + 30
        while time.monotonic() < end and not any(
            "GT2" in "\n".join(user_texts(s.body)) for s in fake.seen()
        ):
            time.sleep(0.2)
        final = last_main(fake)
        text = "\n".join(user_texts(final.body)) if final else ""
        ok = SUMMARY_MARK in text and "GT2" in text
        obs = (
            f"summary req {len(summaries)}, instructions in it {'yes' if steer else 'no'}; "
            f"next req has summary {'yes' if SUMMARY_MARK in text else 'NO'}, "
            f"invalid {invalid(fake)}"
        )
        return obs, ok
    finally:
        p.close()
        fake.stop()
