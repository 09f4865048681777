"""Issue 12's faults, each run under one agent; every function returns (observed text, badness).

Badness is a number the verdict compares (lower is better) and the text says what was seen.
"""

from __future__ import annotations

import os
import random
import signal
import tempfile
import threading
import time
from pathlib import Path

from bench.cc_faults.agents import Home, finish, pids_with, reap, run, spawn
from bench.cc_faults.evidence import answered_calls, has_all, invalid, last_main, transcript_state
from bench.cc_faults.fake import Fault, FaultFake

BIG = "seq 1 300000"  # a ~2 MB tool result: its transcript line takes a while to write


def _home(agent: str, tag: str) -> Home:
    return Home(Path(tempfile.mkdtemp(prefix=f"ccf-{tag}-{agent}-")), agent).make()


def kill9(agent: str, reps: int, seed: int = 12) -> tuple[str, float]:
    """(a) P0 completes; P1 (a long tool result) is kill -9'd at a random moment; two continues
    (P2 with a tool, P3 text). Lost = a prompt that had reached the fake missing from a later
    request; invalid = a request the fake refused (dangling tool_use, ...)."""
    rng = random.Random(seed)
    lost = bad = 0
    p1_kept = 0
    phases: dict[str, int] = {}
    for i in range(reps):
        fake = FaultFake().start()
        try:
            h = _home(agent, "a")
            started = time.monotonic()
            run(h, fake.url, f"bash:{BIG}; echo P0-{i}")
            span = time.monotonic() - started
            first = fake.seen()[0].at - started if fake.seen() else 0.0
            proc = spawn(h, fake.url, f"bash:{BIG}; echo P1-{i}", cont=True)
            t1 = time.monotonic()
            if i % 2:
                # Odd reps: within 0.5 s of the request leaving, i.e. while the tool runs or its
                # long result is being written; even reps: any moment of the run.
                while time.monotonic() - t1 < 30 and not any(
                    not has_all(s, [f"P1-{i}"]) for s in fake.seen()
                ):
                    time.sleep(0.005)
                time.sleep(rng.uniform(0.0, min(0.5, max(0.05, span - first))))
            else:
                time.sleep(rng.uniform(0.05, span))
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
            p1_sent = any(not has_all(s, [f"P1-{i}"]) for s in fake.seen())
            answered = sum(1 for s in fake.seen() if s.kind == "results") > 1
            phase = "after result sent" if answered else "during tool" if p1_sent else "start-up"
            phases[phase] = phases.get(phase, 0) + 1
            run(h, fake.url, f"bash:echo P2-{i}", cont=True)
            run(h, fake.url, f"say P3-{i}", cont=True)
            final = last_main(fake)
            want = [f"P0-{i}", f"P2-{i}", f"P3-{i}"] + ([f"P1-{i}"] if p1_sent else [])
            missing = has_all(final, want) if final else want
            lost += len(missing)
            p1_kept += p1_sent and f"P1-{i}" not in missing
            bad += invalid(fake)
        finally:
            fake.stop()
    where = ", ".join(f"{k} {v}" for k, v in sorted(phases.items()))
    text = (
        f"{reps} kills ({where}): prompts lost {lost}, invalid requests {bad}, "
        f"killed prompt kept {p1_kept}"
    )
    return text, float(lost * 10 + bad * 10)


def _wait_pids(marker: str, n: int, timeout: float, exclude: int) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if len([p for p in pids_with(marker) if p != exclude]) >= n:
            return True
        time.sleep(0.1)
    return False


def signals(agent: str, sig: signal.Signals, reps: int) -> tuple[str, float]:
    """(b) a signal to the agent while Bash runs `bash -c 'sleep & sleep'`: survivors, exit code,
    dangling calls in the transcript, and whether the next continue is valid."""
    left = 0
    codes: list[str] = []
    dangling = 0
    bad = 0
    for i in range(reps):
        fake = FaultFake().start()
        try:
            h = _home(agent, "b")
            run(h, fake.url, f"bash:echo B0-{i}")
            marker = f"300.{os.getpid()}{i}{int(sig)}"
            proc = spawn(h, fake.url, f"bash:bash -c 'sleep {marker} & sleep {marker}'", cont=True)
            started = time.monotonic()
            if not _wait_pids(f"sleep {marker}", 2, 30, proc.pid):
                codes.append("no-start")
            proc.send_signal(sig)
            done = finish(proc, started, 15)
            codes.append("hung" if done.code is None else str(done.code))
            time.sleep(1.0)
            left += reap(f"sleep {marker}")
            st = transcript_state(h.transcripts())
            dangling += st["dangling"]
            run(h, fake.url, f"say B2-{i}", cont=True)
            final = last_main(fake)
            bad += invalid(fake) + (1 if final is None or has_all(final, [f"B0-{i}"]) else 0)
        finally:
            fake.stop()
    text = (
        f"{reps}x: children left {left}, exit {'/'.join(sorted(set(codes)))}, dangling tool_use "
        f"in transcript {dangling}, next continue invalid/lost {bad}"
    )
    return text, float(left * 10 + bad * 10 + ("hung" in codes) * 5)


def drop_after_tool_use(agent: str, reps: int) -> tuple[str, float]:
    """(d) the stream breaks right after a complete tool_use block whose command appends a line."""
    runs: list[str] = []
    worst = 0.0
    for _ in range(reps):
        fake = FaultFake(Fault("drop_after_tool_use")).start()
        try:
            h = _home(agent, "d")
            side = h.root / "side.txt"
            done = run(h, fake.url, f"bash:echo ran >> {side}", timeout=180)
            count = len(side.read_text().splitlines()) if side.exists() else 0
            answered = answered_calls(h.transcripts()) & set(fake.state.tool_ids)
            results = [s for s in fake.seen() if s.kind == "results"]
            runs.append(
                f"side effect x{count}, tool_use blocks streamed {len(fake.state.tool_ids)}, "
                f"with a result in transcript {len(answered)}, results sent {len(results)}, "
                f"exit {done.code}"
            )
            worst = max(worst, abs(count - 1) * 10 + abs(len(answered) - count) * 10)
        finally:
            fake.stop()
    uniq = sorted(set(runs))
    return f"{reps}x: " + "; ".join(uniq), worst


def concurrent(agent: str, reps: int) -> tuple[str, float]:
    """(e) two `-p -c` at once on one session, then a third continue."""
    notes: list[str] = []
    badness = 0.0
    for i in range(reps):
        fake = FaultFake().start()
        try:
            h = _home(agent, "e")
            run(h, fake.url, f"bash:echo E0-{i}")
            procs = [
                spawn(h, fake.url, f"bash:sleep 1; echo E{x}-{i}", cont=True) for x in ("A", "B")
            ]
            t0 = time.monotonic()
            dones = [finish(p, t0, 120) for p in procs]
            codes = [d.code for d in dones]
            run(h, fake.url, f"say EC-{i}", cont=True)
            final = last_main(fake)
            want = [f"E0-{i}", f"EC-{i}"] + [
                f"E{x}-{i}" for x, c in zip(("A", "B"), codes, strict=True) if c == 0
            ]
            missing = has_all(final, want) if final else want
            st = transcript_state(h.transcripts())
            bad = invalid(fake)
            notes.append(
                f"exits {codes[0]}/{codes[1]}, files {st['files']}, bad lines {st['bad']}, "
                f"third: missing {len(missing)}, invalid {bad}"
            )
            badness = max(badness, len(missing) * 10 + bad * 10 + st["bad"] * 5)
        finally:
            fake.stop()
    return f"{reps}x: " + "; ".join(sorted(set(notes))), badness


def stream_fault(agent: str, kind: str, cap: float) -> tuple[str, float]:
    """(f) the first main request hangs (accepted, never answered) or gets a non-JSON data line:
    seconds until the agent retried (a second main request) or ended; how it ended."""
    fake = FaultFake(Fault(kind)).start()
    try:
        h = _home(agent, "f")
        t0 = time.monotonic()
        proc = spawn(h, fake.url, "bash:echo F-ran")
        retry_at: list[float] = []

        def watch() -> None:
            while proc.poll() is None:
                mains = fake.seen("bash")
                if len(mains) >= 2:
                    retry_at.append(mains[1].at - mains[0].at)
                    return
                time.sleep(0.05)

        th = threading.Thread(target=watch, daemon=True)
        th.start()
        done = finish(proc, t0, cap)
        th.join(1)
        ran = any(s.kind == "results" for s in fake.seen())
        if retry_at:
            first = f"retry after {retry_at[0]:.1f}s"
            score = retry_at[0]
        elif done.code is None:
            first = f"nothing for {cap:.0f}s (killed)"
            score = cap * 2
        else:
            first = f"error after {done.seconds:.1f}s"
            score = done.seconds + 30
        end = "gave up" if done.code is None else f"exit {done.code}"
        return f"{first}; {end}, tool ran {'yes' if ran else 'no'}", score + (0 if ran else 20)
    finally:
        fake.stop()
