"""Run every benchmark module (`bench/bench_*.py`, each with `run() -> list[Row]`) and print the table.

`uv run python -m bench` runs all; `uv run python -m bench executor permissions` runs those named.
`uv run python -m bench cc_compare [options]` is separate (it runs two agents for minutes): the
side-by-side permission table against Claude Code, see bench/cc_compare/run.py.
`uv run python -m bench cc_faults` is the side-by-side table under faults and long sessions
(issues 12 and 14), see bench/cc_faults/run.py.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import traceback

from bench.table import Row, print_table


def main(argv: list[str]) -> int:
    if argv[:1] == ["cc_compare"]:
        from bench.cc_compare.run import main as cc_compare

        return cc_compare(argv[1:])
    if argv[:1] == ["cc_faults"]:
        from bench.cc_faults.run import main as cc_faults

        return cc_faults(argv[1:])
    import bench

    names = sorted(
        m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_")
    )
    wanted = [a for a in argv if not a.startswith("-")]
    if wanted:
        names = [n for n in names if n.removeprefix("bench_") in wanted]
    rows: list[Row] = []
    for name in names:
        module = importlib.import_module(f"bench.{name}")
        print(f"running {name} ...", file=sys.stderr, flush=True)
        try:
            rows.extend(module.run())
        except Exception:
            traceback.print_exc()
            rows.append(Row(name.removeprefix("bench_"), "(crashed)", "error", "-", False))
    print_table(rows)
    return 0 if all(r.ok is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
