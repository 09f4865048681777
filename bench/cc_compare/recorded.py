"""Claude Code's recorded outcomes (claude-recorded.json beside this file).

Claude Code's column depends only on its version and the case, so each case's outcome is kept
with a hash of the case's full definition and the version string. A later run reuses an entry whose
hash and version still match and runs Claude Code only for new or changed cases (or for all of
them with --rerun-claude). Without the binary the recorded column is shown, marked as recorded.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

from bench.cc_compare.agents import Run
from bench.cc_compare.corpus import Case
from bench.cc_compare.responder import CLASSIFIER_VERDICT, PROMPT

RECORDED = Path(__file__).with_name("claude-recorded.json")


def case_key(case: Case) -> str:
    data = {"case": dataclasses.asdict(case), "prompt": PROMPT, "classifier": CLASSIFIER_VERDICT}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def claude_version(binary: Path) -> str:
    done = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, timeout=30, check=False
    )
    return done.stdout.strip()


def load(path: Path = RECORDED) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {"version": "", "cases": {}}
    if not isinstance(data, dict) or not isinstance(data.get("cases"), dict):
        return {"version": "", "cases": {}}
    return data


def lookup(data: dict[str, Any], case: Case, version: str | None) -> Run | None:
    """The recorded run of this case, if its definition (and the version, when known) match."""
    entry = data["cases"].get(case.id)
    if not isinstance(entry, dict) or entry.get("key") != case_key(case):
        return None
    if version is not None and data.get("version") != version:
        return None
    return Run(
        "claude",
        list(entry["outcomes"]),
        list(entry["effects"]),
        list(entry["texts"]),
        entry.get("exit"),
        0.0,
        classifier_calls=int(entry.get("classifier_calls", 0)),
        extra={"recorded": True},
    )


def store(
    data: dict[str, Any],
    version: str,
    runs: list[tuple[Case, Run]],
    corpus_ids: set[str],
    path: Path = RECORDED,
) -> None:
    """Keep the fresh runs (those with a result line), drop cases no longer in the corpus, and
    write the file, one case per line so that a change of outcome reads as a one-line diff."""
    if data.get("version") != version:
        data = {"version": version, "cases": {}}
    data["cases"] = {k: v for k, v in data["cases"].items() if k in corpus_ids}
    for case, run in runs:
        if run.problem or run.extra.get("recorded"):
            continue
        data["cases"][case.id] = {
            "key": case_key(case),
            "outcomes": run.outcomes,
            "effects": run.effects,
            "texts": [t[:400] for t in run.texts],
            "exit": run.exit_code,
            "classifier_calls": run.classifier_calls,
        }
    lines = [
        f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
        for k, v in sorted(data["cases"].items())
    ]
    body = ",\n".join(lines)
    text = f'{{\n "version": {json.dumps(version)},\n "cases": {{\n{body}\n }}\n}}\n'
    path.write_text(text, encoding="utf-8")
