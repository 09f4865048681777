"""Issue 14's behaviours under one agent (headless): /compact, PreCompact input, /context,
automatic compaction by reported usage, and the reaction to a 400 "prompt is too long"."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from bench.cc_faults.agents import Home, run
from bench.cc_faults.evidence import invalid, last_main
from bench.cc_faults.fake import SUMMARY_MARK, Fault, FaultFake, texts_of, user_texts

# Both agents are pinned to one 200k-window model, so shares of the window compare (Claude Code
# 2.1.332 never auto-compacts claude-sonnet-4-5: its /context shows no autocompact buffer for it).
MODEL = "claude-sonnet-4-6"
WINDOW = 200_000


def _home(agent: str, tag: str, extra: tuple[str, ...] = ()) -> Home:
    root = Path(tempfile.mkdtemp(prefix=f"ccf-{tag}-{agent}-"))
    return Home(root, agent, ("--model", MODEL, *extra)).make()


def _hook_settings(root: Path) -> Path:
    out = root / "precompact"
    out.mkdir()
    cmd = f"cat > {out}/input-$$.json"
    settings = {
        "hooks": {"PreCompact": [{"matcher": "", "hooks": [{"type": "command", "command": cmd}]}]}
    }
    path = root / "settings.json"
    path.write_text(json.dumps(settings))
    return path


def _hook_inputs(root: Path) -> list[dict[str, Any]]:
    out = []
    for f in sorted((root / "precompact").glob("input-*.json")):
        try:
            out.append(json.loads(f.read_text()))
        except json.JSONDecodeError:
            out.append({"unparsable": f.read_text()[:80]})
    return out


def compact(agent: str, instructions: str) -> tuple[str, dict[str, Any]]:
    """(g) `-p "/compact [instructions]"` after one exchange, then a continue: what the summary
    request carried, what the next request holds, and the PreCompact hook's input."""
    root = Path(tempfile.mkdtemp(prefix=f"ccf-g-{agent}-"))
    settings = _hook_settings(root)
    h = Home(root, agent, ("--model", MODEL, "--settings", str(settings))).make()
    fake = FaultFake().start()
    try:
        run(h, fake.url, "bash:echo G0-ran")
        done = run(h, fake.url, f"/compact {instructions}".strip(), cont=True)
        summaries = fake.seen("summary")
        steer = bool(instructions) and any(
            instructions in "\n".join(user_texts(s.body)) for s in summaries
        )
        run(h, fake.url, "say G2-after", cont=True)
        final = last_main(fake)
        body_text = "\n".join(user_texts(final.body)) if final else ""
        roles = [m.get("role") for m in (final.body.get("messages", []) if final else [])]
        kept_verbatim = "G0-ran" in body_text
        hooks = _hook_inputs(root)
        hook = hooks[0] if hooks else {}
        fields = {k: hook[k] for k in ("trigger", "custom_instructions") if k in hook}
        obs = (
            f"exit {done.code}, summary req {len(summaries)}, instructions in it "
            f"{'yes' if steer else 'no'}; next req: summary {'yes' if SUMMARY_MARK in body_text else 'NO'}, "
            f"old prompt verbatim {'yes' if kept_verbatim else 'no'}, {len(roles)} msgs, "
            f"invalid {invalid(fake)}; hook {json.dumps(fields)}"
        )
        return obs, {"keys": sorted(hook), "ok": SUMMARY_MARK in body_text, "hooks": len(hooks)}
    finally:
        fake.stop()


def context_categories(agent: str) -> str:
    """(h) `-p "/context"`: the categories the breakdown names."""
    fake = FaultFake().start()
    try:
        h = _home(agent, "h")
        run(h, fake.url, "bash:echo H0")
        done = run(h, fake.url, "/context", cont=True)
        result = ""
        for line in reversed(done.stdout.strip().splitlines()):
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict) and data.get("type") == "result":
                result = str(data.get("result", ""))
                break
        if agent == "claude":
            cats = re.findall(r"^\| ([^|]+?) \| [^|]+ \| [\d.]+% \|", result, re.M)
        else:
            cats = re.findall(r"^  ([A-Z][A-Za-z ]+?)\s{2,}[\d.]+k?\s", result, re.M)
        total = re.search(r"([\d.]+k) (?:of|/) ([\d.]+[km])", result)
        head = f"{total.group(1)} of {total.group(2)}; " if total else ""
        return head + ", ".join(cats)
    finally:
        fake.stop()


def auto_compact(agent: str, shares: list[float]) -> tuple[str, float | None]:
    """(i) the fake reports `share` of the window as the main answers' input tokens; then a
    continue. Lowest share at which the agent compacted before (or on) that continue, and
    whether the session went on (the continue's main request answered, exit 0)."""
    seen: list[str] = []
    first: float | None = None
    for share in shares:
        fake = FaultFake(Fault("usage", input_tokens=int(share * WINDOW))).start()
        try:
            h = _home(agent, "i")
            run(h, fake.url, "bash:echo I0")
            done = run(h, fake.url, "bash:echo I1-next", cont=True)
            compacted = bool(fake.seen("summary"))
            # Went on: the continue ended well and its prompt reached the model after any summary.
            ok = (
                done.code == 0
                and invalid(fake) == 0
                and any("I1-next" in "\n".join(user_texts(x.body)) for x in fake.seen()[-2:])
            )
            seen.append(f"{share:.1%}:{'compact' if compacted else '-'}{'' if ok else '(FAILED)'}")
            if compacted and first is None:
                first = share
        finally:
            fake.stop()
    return " ".join(seen), first


def too_long(agent: str) -> tuple[str, float]:
    """(j) one earlier exchange, then the API answers the next turn's first request with a 400
    "prompt is too long" (once): what the agent sends next and how the run ends."""
    fake = FaultFake(Fault("too_long")).start()
    try:
        h = _home(agent, "j")
        fake.fault.fired = 0
        run(h, fake.url, "say J0")  # a text turn: the fault waits for the first bash request
        done = run(h, fake.url, "bash:echo J1-ran", cont=True)
        kinds = [f"{s.kind}{'(400)' if s.status == 400 else ''}" for s in fake.seen()][1:]
        ran = any(s.kind == "results" and s.status == 200 for s in fake.seen())
        retries = sum(1 for s in fake.seen() if s.kind == "bash")
        obs = f"requests {' > '.join(kinds)}; exit {done.code}; tool ran {'yes' if ran else 'no'}"
        return obs, (0.0 if ran and done.code == 0 else 10.0) + max(0, retries - 2) * 5
    finally:
        fake.stop()


def _text(content: Any) -> str:
    return "\n".join(texts_of(content))
