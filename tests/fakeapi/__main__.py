"""`python -m tests.fakeapi --port N --script FILE [--requests-log FILE] [--api-key KEY]
[--context-limit N] [--auto-summary] [--accept-system-messages] [--script-model MODEL]`
(the last two: tests/fakeapi/compat.py).

Prints `fakeapi listening on http://127.0.0.1:PORT` on stdout once it accepts connections (with
`--port 0` that line tells the caller the port), then serves until SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys

from app.model.scenario import Scenario, ScenarioError, load_scenario
from tests.fakeapi.server import FakeAPI


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fakeapi")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="scenario file (JSON or TOML), see app/model/SCENARIOS.md")
    parser.add_argument("--requests-log", help="append every request as a JSON line to this file")
    parser.add_argument("--api-key", help="require this key (default: any non-empty key)")
    parser.add_argument(
        "--context-limit", type=int, help="refuse requests over N tokens (prompt is too long)"
    )
    parser.add_argument(
        "--auto-summary", action="store_true", help="answer compaction requests with a summary"
    )
    parser.add_argument(
        "--accept-system-messages",
        action="store_true",
        help='accept {"role": "system"} entries in messages (Claude Code sends them)',
    )
    parser.add_argument(
        "--script-model", help="only requests for this model use up the script's turns"
    )
    args = parser.parse_args(argv)
    try:
        script = load_scenario(args.script) if args.script else Scenario(turns=())
    except ScenarioError as exc:
        print(f"fakeapi: {exc}", file=sys.stderr)
        return 2
    fake = FakeAPI(
        script,
        port=args.port,
        requests_log=args.requests_log,
        api_key=args.api_key,
        context_limit=args.context_limit,
        auto_summary=args.auto_summary,
        accept_system_messages=args.accept_system_messages,
        script_model=args.script_model,
    )

    def _stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    print(f"fakeapi listening on {fake.url}", flush=True)
    try:
        fake.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stopping.set()
    return 0


if __name__ == "__main__":
    sys.exit(main())
