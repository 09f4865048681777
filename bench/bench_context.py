"""Long sessions (issue 14): a scripted 500-turn session with large tool outputs against the HTTP
fake of the API enforcing a 200k-token context limit (the real API's 400 "prompt is too long").

It must complete with no error; reported beside that: the compactions, the tokens of each request
over the session (the fake's count, which is also the usage it reports), old tool results cleared,
and how long a compaction takes (the summary request to the fake, rebuilding the conversation,
re-reading the recent files from disk).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.table import Row

TURNS = 500
LIMIT = 200_000


def _series(values: list[int], buckets: int = 10) -> str:
    """The peak of each tenth of the session, in k tokens: the saw-tooth of compactions."""
    size = max(1, len(values) // buckets)
    peaks = [max(values[i : i + size]) for i in range(0, len(values), size)]
    return " ".join(f"{p // 1000}" for p in peaks[:buckets])


@dataclass
class _Outcome:
    ok: bool
    turns: int
    requests: int
    refused: int
    tokens: list[int]
    compactions: list[Any]
    cleared: int
    elapsed: float


async def _session(project: Path) -> _Outcome:
    from app.cli import CliOptions
    from app.engine.events import CompactionFailed, CompactionFinished, ErrorOccurred
    from app.model.context_limit import request_tokens
    from tests.fakeapi.server import FakeAPI
    from tests.support.engine import make_session
    from tests.support.long_script import long_turns, make_files

    files = make_files(project, 8, 400)
    (project / ".git").mkdir()
    with FakeAPI(context_limit=LIMIT, auto_summary=True) as fake:
        fake.load(long_turns(TURNS, files, text_chars=2400))
        session, events = make_session(fake, project, opts=CliOptions())
        started = time.perf_counter()
        result = await session.run_turn("Review every module and write the report.")
        elapsed = time.perf_counter() - started
        await session.close()
        statuses = [r.status for r in fake.requests]
        tokens = [request_tokens(b) for b in fake.bodies()]
    compactions = events.of(CompactionFinished)
    return _Outcome(
        ok=result.subtype == "success"
        and result.num_turns == TURNS
        and not events.of(ErrorOccurred)
        and not events.of(CompactionFailed)
        and set(statuses) == {200},
        turns=result.num_turns,
        requests=len(statuses),
        refused=sum(s != 200 for s in statuses),
        tokens=tokens,
        compactions=compactions,
        cleared=session.context_state.cleared_results,
        elapsed=elapsed,
    )


def run() -> list[Row]:
    os.environ.setdefault("LATHE_RETRY_BASE_MS", "5")
    with tempfile.TemporaryDirectory() as home:
        os.environ["LATHE_STATE_DIR"] = str(Path(home) / "state")
        os.environ["LATHE_CONFIG_DIR"] = str(Path(home) / "config")
        project = Path(home) / "project"
        project.mkdir()
        r = asyncio.run(_session(project))
    tokens = r.tokens
    durations = [c.duration_s for c in r.compactions]
    p95 = sorted(tokens)[int(len(tokens) * 0.95)]
    shrunk = ", ".join(
        f"{c.tokens_before // 1000}k→{c.tokens_after // 1000}k" for c in r.compactions
    )
    timing = (
        f"{statistics.mean(durations) * 1000:.0f} ms · {max(durations) * 1000:.0f} ms"
        if durations
        else "-"
    )
    spread = (
        f"{statistics.median(tokens) / 1000:.1f}k · {p95 / 1000:.1f}k · {max(tokens) / 1000:.1f}k"
    )
    per_turn = r.elapsed / max(1, r.turns) * 1000
    return [
        Row(
            "context",
            f"{TURNS}-turn session, {LIMIT // 1000}k limit",
            f"{r.turns} turns, {r.requests} requests, {r.refused} refused",
            "completes, no error",
            r.ok,
        ),
        Row(
            "context",
            "compactions (auto)",
            f"{len(r.compactions)}: {shrunk}",
            ">= 1",
            len(r.compactions) >= 1,
        ),
        Row(
            "context",
            "tokens/request median · p95 · max",
            spread,
            f"max <= {LIMIT // 1000}k",
            max(tokens) <= LIMIT,
        ),
        Row("context", "tokens/request peak per tenth (k)", _series(tokens), "-", None),
        Row("context", "old tool results cleared", str(r.cleared), "-", None),
        Row(
            "context",
            "compaction time mean · max",
            timing,
            "<= 2000 ms (fake model)",
            bool(durations) and max(durations) <= 2.0,
        ),
        Row(
            "context",
            "session wall time · per turn",
            f"{r.elapsed:.1f} s · {per_turn:.0f} ms",
            "-",
            None,
        ),
    ]
