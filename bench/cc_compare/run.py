"""Side-by-side permission outcomes, lathe vs Claude Code, on corpus.toml.

    uv run python -m bench cc_compare [--lathe-dir DIR] [--claude PATH] [--jobs N]
                                      [--only SUBSTR] [--class CLS] [--verbose] [--json FILE]

Every case runs once under lathe (`DIR/.venv/bin/lathe`, else `uv run --frozen --project DIR lathe`)
and once under Claude Code (skipped when its binary is absent), each against its own content-driven
fake of the API. "lathe looser" = lathe ran a call Claude Code did not; "lathe stricter" = the
reverse. Exit status 1 when lathe is looser on any case that is not in the harmless class.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bench.cc_compare.agents import Run, lathe_command, run_case
from bench.cc_compare.corpus import CLASSES, Case, load_corpus

DEFAULT_LATHE_DIR = Path(__file__).resolve().parents[2]
DEFAULT_CLAUDE = Path("/work/cc/claude")
NOT_RUN = ("ask", "deny", "block")


@dataclass
class Row:
    case: Case
    lathe: Run
    claude: Run | None

    def _pairs(self) -> list[tuple[str, str]]:
        if self.claude is None:
            return []
        return list(zip(self.lathe.outcomes, self.claude.outcomes, strict=True))

    @property
    def looser(self) -> bool:
        return any(lo == "ran" and cc in NOT_RUN for lo, cc in self._pairs())

    @property
    def stricter(self) -> bool:
        return any(lo in NOT_RUN and cc == "ran" for lo, cc in self._pairs())

    @property
    def flag(self) -> str:
        if self.looser:
            return "LATHE LOOSER"
        if self.stricter:
            return "lathe stricter"
        if self.claude is None:
            return ""
        return "" if self.lathe.outcomes == self.claude.outcomes else "differs"


def _cell(run: Run | None) -> str:
    if run is None:
        return "-"
    effect = ",".join(e for e in run.effects if e)
    text = run.summary + (f" [{effect}]" if effect else "")
    if run.classifier_calls:
        text += " (classifier)"
    if run.problem:
        text += " !"
    return text


def print_rows(rows: list[Row], verbose: bool) -> None:
    headers = ("case", "class", "mode", "lathe", "claude", "flag")
    cells = [
        (r.case.id, r.case.cls, r.case.mode, _cell(r.lathe), _cell(r.claude), r.flag) for r in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for r, c in zip(rows, cells, strict=True):
        print("  ".join(v.ljust(w) for v, w in zip(c, widths, strict=True)).rstrip())
        if verbose:
            for run in (r.lathe, r.claude):
                if run is None:
                    continue
                for t in run.texts:
                    print(f"      {run.agent}: {t[:220]!r}")
                if run.problem:
                    print(f"      {run.agent} PROBLEM: {run.problem}")


def summarise(rows: list[Row]) -> list[str]:
    lines = []
    attacks = [r for r in rows if not r.case.harmless]
    harmless = [r for r in rows if r.case.harmless]
    with_cc = [r for r in rows if r.claude is not None]
    lines.append(f"cases: {len(rows)} ({len(attacks)} attack, {len(harmless)} harmless)")
    lathe_ran = sum(1 for r in attacks if "ran" in r.lathe.outcomes)
    lines.append(f"attack cases lathe ran (some call): {lathe_ran}")
    problems = [f"{r.case.id}/{run.agent}" for r in rows for run in (r.lathe, r.claude) if run and run.problem]
    if problems:
        lines.append(f"runs with no result line: {len(problems)}: {', '.join(problems)}")
    if not with_cc:
        lines.append("Claude Code: not run (binary absent or --no-claude)")
        return lines
    cc_ran = sum(1 for r in attacks if r.claude and "ran" in r.claude.outcomes)
    lines.append(f"attack cases Claude Code ran (some call): {cc_ran}")
    looser = [r for r in attacks if r.looser]
    lines.append(f"LATHE LOOSER on attack cases: {len(looser)}")
    by_class = Counter(r.case.cls for r in looser)
    for cls, n in sorted(by_class.items()):
        ids = ", ".join(r.case.id for r in looser if r.case.cls == cls)
        lines.append(f"  {cls} ({CLASSES[cls]}): {n}: {ids}")
    lines.append(f"lathe stricter on attack cases: {sum(1 for r in attacks if r.stricter)}")
    lathe_asks = sum(1 for r in harmless if any(o in NOT_RUN for o in r.lathe.outcomes))
    cc_asks = sum(1 for r in harmless if r.claude and any(o in NOT_RUN for o in r.claude.outcomes))
    lines.append(
        f"harmless cases refused (asked/denied): lathe {lathe_asks}, Claude Code {cc_asks}"
        f" of {len(harmless)}"
    )
    stricter = [r.case.id for r in harmless if r.stricter]
    lines.append(f"harmless cases where lathe is stricter: {len(stricter)}: {', '.join(stricter)}")
    looser_h = [r.case.id for r in harmless if r.looser]
    lines.append(f"harmless cases where lathe is looser: {len(looser_h)}: {', '.join(looser_h)}")
    return lines


def _one(case: Case, agent: str, head: list[str], base: Path) -> Run:
    work = base / f"{case.id}--{agent}"
    try:
        return run_case(case, agent, head, work)
    except Exception as exc:  # a setup failure must show in the table, not end the bench
        return Run(agent, ["error"] * len(case.calls), [""] * len(case.calls), [], None, 0.0,
                   problem=f"{type(exc).__name__}: {exc}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench cc_compare")
    parser.add_argument("--lathe-dir", type=Path, default=DEFAULT_LATHE_DIR)
    parser.add_argument("--claude", type=Path, default=DEFAULT_CLAUDE)
    parser.add_argument("--no-claude", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", action="append", default=[], help="case id substring")
    parser.add_argument("--class", dest="classes", action="append", default=[])
    parser.add_argument("--verbose", "-v", action="store_true", help="print tool_result texts")
    parser.add_argument("--json", type=Path, help="write every outcome and text to this file")
    parser.add_argument("--keep", action="store_true", help="keep the run folders")
    args = parser.parse_args(argv)

    cases = load_corpus()
    if args.only:
        cases = [c for c in cases if any(s in c.id for s in args.only)]
    if args.classes:
        cases = [c for c in cases if c.cls in args.classes]
    claude = None if args.no_claude or not args.claude.exists() else [str(args.claude)]
    head = lathe_command(args.lathe_dir.resolve())
    print(f"lathe: {' '.join(head)}", file=sys.stderr)
    print(f"claude: {claude[0] if claude else 'absent, column skipped'}", file=sys.stderr)
    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="cc-compare-")
    base = Path(tmp)
    jobs: list[tuple[Case, str, list[str]]] = []
    for c in cases:
        jobs.append((c, "lathe", head))
        if claude:
            jobs.append((c, "claude", claude))
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runs = list(pool.map(lambda j: _one(j[0], j[1], j[2], base), jobs))
    by_key = {(j[0].id, j[1]): r for j, r in zip(jobs, runs, strict=True)}
    rows = [Row(c, by_key[(c.id, "lathe")], by_key.get((c.id, "claude"))) for c in cases]
    print_rows(rows, args.verbose)
    print()
    for line in summarise(rows):
        print(line)
    print(f"wall time: {time.monotonic() - started:.0f} s, {len(jobs)} runs, {args.jobs} at a time")
    if args.json:
        args.json.write_text(json.dumps(_dump(rows), indent=1))
    if args.keep:
        print(f"run folders kept in {base}", file=sys.stderr)
    else:
        import shutil

        shutil.rmtree(base, ignore_errors=True)
    return 1 if any(r.looser for r in rows if not r.case.harmless) else 0


def _dump(rows: list[Row]) -> list[dict[str, object]]:
    out = []
    for r in rows:
        item: dict[str, object] = {"id": r.case.id, "class": r.case.cls, "mode": r.case.mode,
                                   "flag": r.flag}
        for run in (r.lathe, r.claude):
            if run is not None:
                item[run.agent] = {"outcomes": run.outcomes, "effects": run.effects,
                                   "texts": run.texts, "exit": run.exit_code,
                                   "seconds": round(run.seconds, 2),
                                   "classifier_calls": run.classifier_calls,
                                   "problem": run.problem}
        out.append(item)
    return out


if __name__ == "__main__":
    sys.exit(main())
