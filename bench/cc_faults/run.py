"""Side by side under faults and long sessions (issues 12 and 14): lathe vs Claude Code.

    uv run python -m bench cc_faults [--reps N] [--only a,b,...] [--hang-cap S]

Both agents run headless (`-p`, bypassPermissions, a throwaway HOME) against bench/cc_faults/fake.py
on loopback; each case prints what each agent did and a verdict (lathe better / same / worse).
Claude Code is /work/cc/claude (CC_FAULTS_CLAUDE overrides). Takes a few minutes: the hang case
waits up to --hang-cap seconds per agent.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from collections.abc import Callable

from bench.cc_faults import cases_context as ctx
from bench.cc_faults import cases_faults as flt
from bench.cc_faults import tui

Row = tuple[str, str, str, str]


def _verdict(lathe: float | None, claude: float | None, lower_better: bool = True) -> str:
    if lathe == claude:
        return "same"
    if lathe is None or claude is None:
        return "differs"
    better = lathe < claude if lower_better else lathe > claude
    return "lathe better" if better else "lathe worse"


def _pair(case: str, fn: Callable[[str], tuple[str, float]]) -> Row:
    lo, ls = fn("lathe")
    co, cs = fn("claude")
    return case, lo, co, _verdict(ls, cs)


def _timed(case: str, kind: str, cap: float) -> Row:
    """Seconds to a retry or an error: within 2 s of each other is the same."""
    lo, ls = flt.stream_fault("lathe", kind, cap)
    co, cs = flt.stream_fault("claude", kind, cap)
    verdict = "same" if abs(ls - cs) < 2.0 else _verdict(ls, cs)
    return case, lo, co, verdict


def _tui_compact(case: str, instructions: str) -> Row:
    lo, lok = tui.compact("lathe", instructions)
    co, cok = tui.compact("claude", instructions)
    return case, lo, co, "same" if lok == cok else ("lathe better" if lok else "lathe worse")


def _compact(case: str, instructions: str) -> Row:
    lo, linfo = ctx.compact("lathe", instructions)
    co, cinfo = ctx.compact("claude", instructions)
    extra = f" (hook keys only lathe: {sorted(set(linfo['keys']) - set(cinfo['keys']))}, only CC: {sorted(set(cinfo['keys']) - set(linfo['keys']))})"
    verdict = (
        "same" if linfo["ok"] == cinfo["ok"] and linfo["hooks"] == cinfo["hooks"] else "differs"
    )
    return case, lo + extra, co, verdict


def _auto(shares: list[float]) -> Row:
    lo, lf = ctx.auto_compact("lathe", shares)
    co, cf = ctx.auto_compact("claude", shares)
    # Compacting at all before the window is full is what matters; an earlier threshold is not
    # better by itself, so two agents that both compact are "same".
    if (lf is None) == (cf is None):
        verdict = "same"
    else:
        verdict = "lathe better" if cf is None else "lathe worse"
    return "i auto-compact by reported usage (share of 200k)", lo, co, verdict


def cases(reps: int, hang_cap: float) -> dict[str, Callable[[], Row]]:
    return {
        "a": lambda: _pair(
            f"a kill -9 mid-run, then 2x -c ({reps} reps)", lambda ag: flt.kill9(ag, reps)
        ),
        "b1": lambda: _pair(
            "b SIGTERM during Bash (sleep & sleep)",
            lambda ag: flt.signals(ag, signal.SIGTERM, max(1, reps // 2)),
        ),
        "b2": lambda: _pair(
            "b SIGHUP during Bash (sleep & sleep)",
            lambda ag: flt.signals(ag, signal.SIGHUP, max(1, reps // 2)),
        ),
        "d": lambda: _pair(
            "d stream drop after tool_use (appends a line)",
            lambda ag: flt.drop_after_tool_use(ag, 2),
        ),
        "e": lambda: _pair(
            "e two concurrent -p -c, then a third",
            lambda ag: flt.concurrent(ag, max(1, reps // 2)),
        ),
        "c": lambda: _pair(
            f"c tmux kill-pane of the TUI during Bash ({max(1, reps // 2)} reps)",
            lambda ag: tui.kill_pane(ag, max(1, reps // 2)),
        ),
        "f1": lambda: _timed("f accepted, never answered", "hang", hang_cap),
        "f2": lambda: _timed("f a data: line that is not JSON", "bad_data", 60),
        "g1": lambda: _compact("g -p /compact", ""),
        "g2": lambda: _compact("g -p '/compact keep the word ZEBRA'", "keep the word ZEBRA"),
        "g3": lambda: _tui_compact("g TUI /compact", ""),
        "g4": lambda: _tui_compact("g TUI /compact keep the word ZEBRA", "keep the word ZEBRA"),
        "h": lambda: (
            "h -p /context categories",
            ctx.context_categories("lathe"),
            ctx.context_categories("claude"),
            "differs",
        ),
        "i": lambda: _auto([0.80, 0.82, 0.83, 0.835, 0.84, 0.85, 0.90]),
        "j": lambda: _pair("j 400 prompt is too long (once)", ctx.too_long),
    }


def print_rows(rows: list[Row]) -> None:
    print("| case | lathe observed | Claude Code 2.1.332 observed | verdict |")
    print("|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(c.replace("|", "/") for c in r) + " |")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench cc_faults")
    parser.add_argument("--reps", type=int, default=6, help="repetitions of the random cases")
    parser.add_argument("--only", default="", help="comma-separated case keys (a,b1,b2,d,e,f1,...)")
    parser.add_argument("--hang-cap", type=float, default=150.0)
    args = parser.parse_args(argv)
    # Started under nohup, the agents would inherit an ignored SIGHUP, and lathe keeps a SIGHUP
    # ignored at start (nohup asked to outlive the terminal): start them as a terminal would.
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    table = cases(args.reps, args.hang_cap)
    keys = [k for k in args.only.split(",") if k] or list(table)
    rows: list[Row] = []
    for key in keys:
        t0 = time.monotonic()
        print(f"running {key} ...", file=sys.stderr, flush=True)
        rows.append(table[key]())
        print(f"  {key}: {time.monotonic() - t0:.0f}s {rows[-1]}", file=sys.stderr, flush=True)
    print_rows(rows)
    return 1 if any(r[3] == "lathe worse" for r in rows) else 0
