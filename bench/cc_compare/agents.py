"""Running one case under one agent (lathe or Claude Code) and reading what happened.

Each run gets its own folders (corpus.Places) and its own fake (responder.CaseResponder), so runs
share nothing and can go in parallel. An outcome is decided per tool call:

- ran:   the call got a tool_result and is not in the result line's permission_denials;
- ask:     it was refused because it needed a prompt (`-p` cannot ask), or Claude Code sent it to
           its auto-mode classifier (the fake's classifier always blocks; see responder.py);
- deny:    a deny rule or the mode refused it (in dontAsk mode every refusal is a deny);
- cancel:  not run because a sibling call of the same turn was refused;
- refused: the agent would not start at all (e.g. lathe exits 2 on a broken settings file);
- error:   no tool_result at all for another reason (a crash, a timeout).

Evidence beats reports: a sentinel file that exists, a leak marker in a tool result, or a hit on the
fake from WebFetch makes the call "ran" whatever the agent said, and the effect column shows it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.cc_compare.corpus import API_KEY, Case, Places, base_env, materialise
from bench.cc_compare.responder import PROMPT, Call, CaseResponder, Observed

RUN_TIMEOUT_S = 90.0
# A refusal is "deny" when a rule or the mode decided it, else "ask" (-p cannot ask, so asking is
# refusing; Claude Code's own security checks and its auto-mode classifier ask too).
_DENY = re.compile(
    r"has been denied|denied access to domain|denied by the rule|deny rule|don't ask mode|"
    r"dontAsk mode|plan mode is on",
    re.IGNORECASE,
)
# lathe's answer for the other calls of a batch after one failed: they never ran.
_CANCELLED = re.compile(r"<tool_use_error>Cancelled: parallel tool call", re.IGNORECASE)
NOT_RUN = ("ask", "deny", "cancel", "refused")


@dataclass
class Run:
    agent: str
    outcomes: list[str]
    effects: list[str]
    texts: list[str]
    exit_code: int | None
    seconds: float
    classifier_calls: int = 0
    problem: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def summary(self) -> str:
        return "+".join(self.outcomes)


def lathe_command(lathe_dir: Path) -> list[str]:
    """The checkout's own venv entry point when it has one (fast), else `uv run --frozen`."""
    venv = lathe_dir / ".venv" / "bin" / "lathe"
    if venv.exists():
        return [str(venv)]
    uv = shutil.which("uv") or "uv"
    return [uv, "run", "--frozen", "--project", str(lathe_dir), "lathe"]


def _argv(case: Case, places: Places, head: list[str]) -> list[str]:
    argv = [*head, "-p", PROMPT, "--output-format", "json"]
    if case.allow:
        argv += ["--allowedTools", *case.allow]
    if case.deny:
        argv += ["--disallowedTools", *case.deny]
    if case.settings_flag:
        argv += ["--settings", str(places.path(case.settings_flag))]
    # Last, so that it also ends the variadic rule lists above.
    argv += ["--permission-mode", case.mode]
    return argv


def _env(case: Case, places: Places, responder: CaseResponder, agent: str) -> dict[str, str]:
    env = base_env(places)
    env.update(
        {
            "ANTHROPIC_BASE_URL": responder.url,
            "ANTHROPIC_API_KEY": API_KEY,
            "NO_PROXY": "127.0.0.1,localhost",
        }
    )
    if agent == "claude":
        env.update(
            {
                "CLAUDE_CONFIG_DIR": str(places.cc_config),
                # Claude Code refuses bypassPermissions as root unless told it is in a sandbox.
                "IS_SANDBOX": "1",
                "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_TELEMETRY": "1",
            }
        )
    else:
        env.update(
            {
                "LATHE_CONFIG_DIR": str(places.lathe_config),
                "LATHE_STATE_DIR": str(places.lathe_state),
                "LATHE_POLICY_FILE": str(places.home / "no-policy.toml"),
                "LATHE_MAX_RETRIES": "0",
            }
        )
    env.update({k: places.sub(v) for k, v in case.env.items()})
    return env


def _result_line(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.strip().splitlines()):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and data.get("type") == "result":
            return data
    return None


def _refusal_kind(text: str, mode: str) -> str:
    return "deny" if mode == "dontAsk" or _DENY.search(text) else "ask"


def judge(
    case: Case,
    places: Places,
    observed: Observed,
    call_ids: list[str],
    denied: set[str],
    started: bool = True,
) -> tuple[list[str], list[str], list[str]]:
    """Per call: the outcome, the observed effect and the tool_result text. `started` is False
    when the agent exited with an error before its result line."""
    outcomes: list[str] = []
    effects: list[str] = []
    texts: list[str] = []
    sentinel = places.path(case.sentinel) if case.sentinel else None
    pwned = sentinel is not None and (sentinel.exists() or sentinel.is_symlink())
    for i, tid in enumerate(call_ids):
        result = observed.results.get(tid)
        text = result.text if result else ""
        if tid in denied:
            outcome = _refusal_kind(text, case.mode)
        elif result is None:
            outcome = "error" if started or observed.main_requests else "refused"
        elif _CANCELLED.search(text):
            outcome = "cancel"
        else:
            outcome = "ran"
        effect: list[str] = []
        # A sentinel belongs to the whole case: it is pinned on the first call only.
        if pwned and i == 0:
            effect.append("PWNED")
        if case.leak and case.leak in text:
            effect.append("LEAK")
        if case.calls[i].tool == "WebFetch" and observed.hits:
            effect.append("HIT")
        if effect and outcome != "ran":
            outcome = "ran"
        outcomes.append(outcome)
        effects.append(",".join(effect))
        texts.append(text)
    return outcomes, effects, texts


def _substituted(value: Any, places: Places) -> Any:
    if isinstance(value, str):
        return places.sub(value)
    if isinstance(value, dict):
        return {k: _substituted(v, places) for k, v in value.items()}
    if isinstance(value, list):
        return [_substituted(v, places) for v in value]
    return value


def run_case(case: Case, agent: str, head: list[str], workdir: Path) -> Run:
    """Run one case under one agent ("lathe" or "claude", with `head` its command) in workdir."""
    responder = CaseResponder(list(case.calls)).start()
    try:
        places = Places(workdir, responder.port)
        responder.calls = [Call(c.tool, _substituted(c.input, places)) for c in case.calls]
        materialise(case, places)
        argv = _argv(case, places, head)
        started = time.monotonic()
        try:
            done = subprocess.run(
                argv,
                cwd=places.proj,
                env=_env(case, places, responder, agent),
                capture_output=True,
                text=True,
                timeout=RUN_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
            )
            code: int | None = done.returncode
            stdout, stderr = done.stdout, done.stderr
        except subprocess.TimeoutExpired as exc:
            code = None
            stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            stderr = "timeout"
        seconds = time.monotonic() - started
        result = _result_line(stdout)
        denied = {
            str(d.get("tool_use_id"))
            for d in (result or {}).get("permission_denials") or []
            if isinstance(d, dict)
        }
        started_ok = result is not None or code == 0
        outcomes, effects, texts = judge(
            case, places, responder.observed, responder.call_ids, denied, started_ok
        )
        problem = ""
        if result is None:
            problem = f"no result line (exit {code}): {stderr.strip()[-300:]}"
        return Run(
            agent,
            outcomes,
            effects,
            [t.replace(str(workdir), "@RUN@") for t in texts],
            code,
            seconds,
            classifier_calls=responder.observed.classifier_calls,
            problem=problem,
            extra={"stderr": stderr[-2000:], "result": result},
        )
    finally:
        responder.stop()
