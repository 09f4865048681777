"""Start-up and streaming clocks (issue 18), measured the way the user sees them: the real programs
in tmux at 120x40 against the API fake (its own process), a reply of 2,000 one-word chunks, the
screen read with `capture-pane`, bytecode cached (a warm-up run writes it first).

Clocks:
- print: `-p hi`, process start to the fake receiving the first request;
- prompt arg: the TUI started with a prompt, process start to the last word on screen;
- Enter +0.5 s / +4 s: the TUI started empty; Enter pressed that long after the screen stopped
  changing, to the last word on screen;
- request to last word (the +4 s run): the fake receiving the request to the last word on screen,
  which is the rendering of the stream once the request is out;
- paced: a stream of one chunk a millisecond, its last text delta written to the last word on
  screen (the target is one frame, 16.7 ms). The screen is read by a tmux control-mode client
  (bench/pane_watch.py), and a floor client that writes each delta as it arrives
  (bench/instant_client.py) shows what the measurement itself costs (LATHE_BENCH_FLOOR=0: not run;
  LATHE_BENCH_POLL=capture: the old `capture-pane` poll every 3 ms, to compare).

lathe and Claude Code (when its binary is there: see bench/startup_clients.py) run alternately,
round after round, so the machine's load falls on both alike; the table shows medians, and with
Claude Code the median of the round-by-round ratios (lathe / Claude Code), which is the verdict.
Without Claude Code the targets are the figures in issue 18. Environment:
LATHE_BENCH_ROUNDS (default 3), LATHE_BENCH_LATHE (comma list of python, uv, installed; default
python,installed), LATHE_BENCH_CLAUDE (the binary; default /work/cc/claude).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench.startup_clients import (
    Client,
    Fake,
    Pane,
    claude_binary,
    claude_client,
    install_lathe,
    instant_client,
    lathe_client,
    scratch,
)
from bench.table import Row

WORDS = [f"w{i} " for i in range(2000)]
LAST = "w1999"
# The client that shows each delta the moment it arrives: what the clocks read for it is the
# measurement's own cost (bench/instant_client.py).
FLOOR = "floor (instant printer)"
PROMPT = "qx7"  # typed into the input; a string no screen shows by itself
# Claude Code 2.1.332 on this machine, from issue 18 (used when its binary is absent).
ISSUE_FIGURES = {
    "print": 0.35,
    "prompt_arg": 0.91,
    "enter_0_5": 0.34,
    "enter_4": 0.285,
    "request_to_last": 0.14,
}
CLOCKS = (
    ("print", "-p hi: start to first API request"),
    ("prompt_arg", "TUI with a prompt argument: start to last word"),
    ("enter_0_5", "Enter 0.5 s after the screen settles: to last word"),
    ("enter_4", "Enter 4 s after the screen settles: to last word"),
    ("request_to_last", "  the same: request received to last word"),
    ("paced", "paced 1 ms/chunk: last delta sent to last word"),
)


def _words(delay: float = 0.0) -> dict[str, object]:
    turn: dict[str, object] = {"blocks": [{"type": "text", "chunks": WORDS}]}
    if delay:
        turn["delay"] = delay
    return {"turns": [turn]}


def _wait(pane: Pane, text: str, timeout: float = 60.0) -> float:
    """The moment `text` is first seen on the screen (bench/pane_watch.py: to a fraction of a ms)."""
    return pane.seen(text, timeout)


def _settled(pane: Pane, ready: str, quiet: float = 0.3, timeout: float = 20.0) -> float:
    """When the screen last changed, once it shows `ready` and has not changed for `quiet` s."""
    deadline = time.monotonic() + timeout
    last, changed = "", time.monotonic()
    while time.monotonic() < deadline:
        screen = pane.screen()
        now = time.monotonic()
        if screen != last:
            last, changed = screen, now
        elif ready in screen and now - changed >= quiet:
            return changed
        time.sleep(0.01)
    return changed


class Bench:
    def __init__(self, root: Path, fake: Fake) -> None:
        self.root = root
        self.fake = fake

    def _pane(self, client: Client, args: list[str]) -> Pane:
        pane = Pane(self.root)
        pane.start([*client.argv, *args], client.repo, client.env)
        return pane

    def print_clock(self, client: Client) -> float:
        self.fake.load({"turns": [{"blocks": [{"type": "text", "text": "ok"}]}]})
        since = len(self.fake.requests())
        t0 = time.monotonic()
        subprocess.run(
            [*client.argv, "-p", "hi"],
            cwd=client.repo,
            env=client.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=120,
        )
        first = self.fake.main_requests(since)
        if not first:
            raise AssertionError(f"{client.name} -p sent no request")
        return float(first[0]["received"]) - t0

    def prompt_arg_clock(self, client: Client) -> float:
        self.fake.load(_words())
        t0 = time.monotonic()
        pane = self._pane(client, [PROMPT])
        try:
            return _wait(pane, LAST) - t0
        finally:
            pane.kill()

    def enter_clock(self, client: Client, after: float, delay: float = 0.0) -> tuple[float, float]:
        """(Enter to last word, request received to last word), or for a paced stream the
        second figure is last text delta sent to last word."""
        self.fake.load(_words(delay))
        pane = self._pane(client, [])
        try:
            settled = _settled(pane, client.prompt_shown)
            pane.type(PROMPT)
            _wait(pane, PROMPT)
            time.sleep(max(0.0, settled + after - time.monotonic()))
            since = len(self.fake.requests())
            t0 = time.monotonic()
            pane.send("Enter")
            seen = _wait(pane, LAST)
            request = self._answered(since) if delay else self.fake.main_requests(since)[-1]
            # Paced: from the last text delta written (the stream's closing events come after).
            mark = (
                (request.get("last_text") or request["finished"]) if delay else request["received"]
            )
            return seen - t0, seen - float(mark)
        finally:
            pane.kill()

    def _answered(self, since: int) -> dict[str, object]:
        """The request once the fake has written its answer's last byte: a client that shows
        words as they come (the floor) shows the last one before the stream's closing events,
        and its record is complete only then."""
        deadline = time.monotonic() + 10
        while True:
            request = self.fake.main_requests(since)[-1]
            if request["finished"] or time.monotonic() > deadline:
                return request
            time.sleep(0.01)

    def round(self, client: Client) -> dict[str, float]:
        if client.name == FLOOR:
            # It has no -p and no prompt argument: only the clocks that time the stream.
            _, request_to_last = self.enter_clock(client, 1.0)
            _, paced = self.enter_clock(client, 1.0, delay=0.001)
            return {"request_to_last": request_to_last, "paced": paced}
        figures = {"print": self.print_clock(client), "prompt_arg": self.prompt_arg_clock(client)}
        figures["enter_0_5"], _ = self.enter_clock(client, 0.5)
        figures["enter_4"], figures["request_to_last"] = self.enter_clock(client, 4.0)
        _, figures["paced"] = self.enter_clock(client, 1.0, delay=0.001)
        return figures


def _clients(bench: Bench) -> list[Client]:
    wanted = os.environ.get("LATHE_BENCH_LATHE", "python,installed").split(",")
    clients: list[Client] = []
    for how in (w.strip() for w in wanted if w.strip()):
        if how == "installed":
            exe = os.environ.get("LATHE_BENCH_INSTALLED") or install_lathe(bench.root)
            if exe is None:
                print("startup: could not install lathe with uv; skipped", file=sys.stderr)
                continue
            clients.append(lathe_client(bench.root, bench.fake, how, exe))
        else:
            clients.append(lathe_client(bench.root, bench.fake, how))
    binary = claude_binary()
    if binary is not None:
        clients.append(claude_client(bench.root, bench.fake, binary))
    if os.environ.get("LATHE_BENCH_FLOOR", "1") != "0":
        clients.append(instant_client(bench.root, bench.fake))
    return clients


def measure(log: Callable[[str], None] | None = None) -> dict[str, dict[str, list[float]]]:
    """Every client's figures, round by round, the clients alternating within each round."""
    rounds = int(os.environ.get("LATHE_BENCH_ROUNDS", "3"))
    say = log or (lambda line: print(line, file=sys.stderr, flush=True))
    results: dict[str, dict[str, list[float]]] = {}
    with scratch() as tmp:
        fake = Fake(Path(tmp))
        try:
            bench = Bench(Path(tmp), fake)
            clients = _clients(bench)
            for client in clients:  # warm-up: writes the bytecode, fills the OS file cache
                if client.name != FLOOR:
                    bench.print_clock(client)
            for n in range(rounds):
                for client in clients if n % 2 == 0 else reversed(clients):
                    figures = bench.round(client)
                    say(f"round {n + 1} {client.name}: " + _fmt(figures))
                    for key, value in figures.items():
                        results.setdefault(client.name, {}).setdefault(key, []).append(value)
        finally:
            fake.stop()
    return results


def _fmt(figures: dict[str, float]) -> str:
    return " ".join(f"{k}={v * 1000:.0f}ms" for k, v in figures.items())


def _ratio(mine: list[float], theirs: list[float]) -> float:
    """The median of round-by-round ratios: the two ran back to back in each round, so a ratio
    holds up when the machine's load drifts between rounds (medians of each side do not)."""
    return statistics.median(a / b for a, b in zip(mine, theirs, strict=False) if b > 0)


def run() -> list[Row]:
    results = measure()
    claude = results.get("Claude Code")
    rows: list[Row] = []
    floor = results.get(FLOOR)
    for name, figures in results.items():
        if name in ("Claude Code", FLOOR):
            continue
        for key, label in CLOCKS:
            mine = statistics.median(figures[key])
            measured = f"{mine * 1000:.0f} ms"
            if key == "paced":
                shown, ok = "<= 17 ms (one frame)", mine <= 1 / 60
            elif claude:
                ref = statistics.median(claude[key])
                ratio = _ratio(figures[key], claude[key])
                measured += f" (x{ratio:.2f})"
                shown = f"<= CC: {ref * 1000:.0f} ms (x1.00)"
                ok = ratio <= 1.0
            else:
                ref = ISSUE_FIGURES[key]
                shown, ok = f"<= {ref * 1000:.0f} ms (CC in issue 18)", mine <= ref
            rows.append(Row("startup", f"{name}: {label}", measured, shown, ok))
    if floor:
        for key in ("request_to_last", "paced"):
            label = dict(CLOCKS)[key].strip()
            value = statistics.median(floor[key])
            rows.append(Row("startup", f"{FLOOR}: {label}", f"{value * 1000:.1f} ms", "-", None))
    if claude:
        paced = statistics.median(claude["paced"])
        rows.append(
            Row(
                "startup",
                "Claude Code: paced, last delta to last word",
                f"{paced * 1000:.0f} ms",
                "-",
                None,
            )
        )
    return rows
