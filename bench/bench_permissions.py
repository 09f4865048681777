"""Deciding one Bash call against 200 rules (target: median <= 0.5 ms)."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.table import Row

TARGET_MS = 0.5


def run() -> list[Row]:
    from app.config.loader import CliOverrides, load_settings
    from app.permissions import RuleDecider, context_from_settings
    from tools.base import Tool, ToolContext
    from tools.decisions import PermissionDecision

    class BashLike(Tool[dict[str, Any]]):
        # Declared as Bash is: a tool declaring no kind is judged as a generic tool, which
        # never reaches the shell analysis this bench is about.
        name = "Bash"
        permission_kind = "shell"
        subject_field = "command"

        async def check_permissions(
            self, input: dict[str, Any], context: ToolContext
        ) -> PermissionDecision:
            return PermissionDecision.passthrough()

    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "proj"
        (project / ".git").mkdir(parents=True)
        allow = tuple(f"Bash(tool{i} sub{i}:*)" for i in range(120)) + tuple(
            f"Edit(src/pkg{i}/**)" for i in range(30)
        )
        deny = tuple(f"Bash(danger{i}:*)" for i in range(40)) + tuple(
            f"Read(./secret{i}/**)" for i in range(10)
        )
        env = {
            "HOME": tmp,
            "LATHE_CONFIG_DIR": tmp + "/c",
            "LATHE_STATE_DIR": tmp + "/s",
            "LATHE_POLICY_FILE": tmp + "/p.toml",
        }
        cli = CliOverrides(allowed_tools=allow, disallowed_tools=deny)
        pc = context_from_settings(load_settings(project, cli, env), trusted=True, env=env)
        assert len(pc.rules()) == 200
        decider = RuleDecider(pc)
        ctx = ToolContext(cwd=str(project), project_dir=str(project), working_dirs=(str(project),))
        tool = BashLike()
        rows = []
        # The honest figure parses every command afresh (each call differs); plain commands take
        # the fast path, quoted ones bashlex. The cached row is what the pipeline pays when the
        # same command was already analysed by Bash's is_read_only.
        for label, commands, target in (
            (
                "Bash call, 200 rules, fresh parse each call",
                [f"tool77 sub77 --n {i} && ls src | wc -l > out{i}.txt" for i in range(2000)],
                True,
            ),
            (
                "Bash call, 200 rules, parse cached",
                ["tool77 sub77 --flag x && ls src | wc -l"],
                False,
            ),
            (
                "Bash call, 200 rules, quoted args (bashlex parse)",
                [f"tool77 sub77 --msg 'n {i}' && ls src | wc -l" for i in range(2000)],
                False,
            ),
            (
                # bashlex and the strict lexer, the here-document rewritten for bashlex
                "Bash call, 200 rules, here-document (both parsers)",
                [f"cat <<'EOF'\nline {i} $x\nEOF" for i in range(2000)],
                False,
            ),
            (
                # the repository found from the working folder and its config read each call
                "Bash call, 200 rules, git status (repository check)",
                ["git status"],
                False,
            ),
        ):
            samples = []
            loop = asyncio.new_event_loop()
            try:
                for i in range(2000):
                    cmd = commands[i % len(commands)]
                    inp = {"command": cmd}
                    t0 = time.perf_counter()
                    loop.run_until_complete(decider.decide(tool, inp, inp, ctx))
                    samples.append((time.perf_counter() - t0) * 1000)
            finally:
                loop.close()
            med = statistics.median(samples)
            rows.append(
                Row(
                    "permissions",
                    label,
                    f"median {med:.3f} ms",
                    f"<= {TARGET_MS} ms" if target else "-",
                    med <= TARGET_MS if target else None,
                )
            )
        return rows
