"""The built-in `demo` scenario: an offline tour of the user's own repository.

Turns are built at request time from the working folder (tool inputs must name real files) and
from the conversation so far, so the tour needs no state of its own and survives --continue:

  0. several Glob/Grep/Read calls in one turn (concurrent, with live progress)
  1. a Bash command that runs for about 3 seconds, printing progress
  2. Write of a scratch file (needs approval in the default mode)
  3. Edit of that file (needs approval)
  4. a summary

Every new user prompt starts the tour again. The texts say that this is the offline demo.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.model.scenario import Turn, text_block, tool_use_block, turn_of
from app.model.scripted import make_scripted_client

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

DELAY = 0.012  # seconds between stream events: enough to watch the text arrive
SCRATCH_STEM = ".lathe-demo"
PREFERRED = (
    "README.md",
    "README.rst",
    "README",
    "pyproject.toml",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "Makefile",
)
SOURCE_SUFFIXES = (".py", ".ts", ".js", ".rs", ".go", ".java", ".c", ".rb", ".md")
MAX_FILE_BYTES = 200_000
BASH_COMMAND = 'for i in 1 2 3 4 5 6; do echo "demo step $i/6"; sleep 0.5; done; echo done'
SCRATCH_BEFORE = "This scratch file was written by lathe's offline demo.\nstatus: draft\n"
SCRATCH_AFTER = "status: edited by the demo (you approved this edit)\n"


def _listed_files(cwd: Path) -> list[str]:
    """Tracked files when cwd is in git (cheap and respects .gitignore), else the top level."""
    try:
        proc = subprocess.run(
            ["git", "ls-files", "-z"], cwd=cwd, capture_output=True, timeout=5, check=False
        )
        if proc.returncode == 0 and proc.stdout:
            return [p for p in proc.stdout.decode("utf-8", "replace").split("\0") if p][:5000]
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        return sorted(e.name for e in cwd.iterdir() if e.is_file())[:5000]
    except OSError:
        return []


def pick_files(cwd: Path, limit: int = 2) -> list[str]:
    """A couple of small, real, readable files worth showing (README and manifest first)."""
    files = [f for f in _listed_files(cwd) if not Path(f).name.startswith(SCRATCH_STEM)]
    ranked = [f for name in PREFERRED for f in files if f == name]
    ranked += [f for f in files if f.endswith(SOURCE_SUFFIXES) and f not in ranked]
    chosen: list[str] = []
    for rel in ranked:
        path = cwd / rel
        try:
            if path.is_file() and 0 < path.stat().st_size <= MAX_FILE_BYTES:
                chosen.append(rel)
        except OSError:
            continue
        if len(chosen) == limit:
            break
    return chosen


def main_suffix(cwd: Path) -> str:
    counts: dict[str, int] = {}
    for f in _listed_files(cwd):
        suffix = Path(f).suffix
        if suffix in SOURCE_SUFFIXES and suffix != ".md":
            counts[suffix] = counts.get(suffix, 0) + 1
    return max(counts, key=lambda s: counts[s], default="")


def scratch_name(cwd: Path) -> str:
    """A scratch file name that does not exist yet, so the demo never overwrites user data."""
    for n in range(1, 100):
        name = f"{SCRATCH_STEM}.txt" if n == 1 else f"{SCRATCH_STEM}-{n}.txt"
        if not (cwd / name).exists():
            return name
    return f"{SCRATCH_STEM}-final.txt"


def _is_prompt(message: dict[str, Any]) -> bool:
    content = message.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and any(
        isinstance(b, dict)
        and b.get("type") == "text"
        and not str(b.get("text", "")).startswith("[")
        for b in content
    )


def _tour_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    start = max(
        (i for i, m in enumerate(messages) if m.get("role") == "user" and _is_prompt(m)), default=0
    )
    return messages[start:]


def _tool_uses(messages: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [
        b
        for m in messages
        if m.get("role") == "assistant" and isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == name
    ]


def _last_results_failed(messages: list[dict[str, Any]]) -> bool:
    last = messages[-1] if messages else {}
    content = last.get("content")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" and b.get("is_error")
        for b in content
    )


class DemoSource:
    """A TurnSource generating the tour for `cwd`."""

    # /compact in the demo gets a generated summary instead of the tour's next step.
    auto_summary = True

    def __init__(self, cwd: str | Path, *, delay: float = DELAY) -> None:
        self.cwd = Path(cwd)
        self.delay = delay

    def next_turn(self, body: dict[str, Any]) -> Turn:
        messages = body.get("messages") or []
        tour = _tour_messages(messages)
        step = sum(1 for m in tour if m.get("role") == "assistant")
        if step == 0:
            return self._explore()
        if step == 1:
            return turn_of(
                [
                    text_block(
                        "Now a command that takes a few seconds, so you can watch its "
                        "progress live:"
                    ),
                    tool_use_block(
                        "Bash",
                        {"command": BASH_COMMAND, "description": "Demo: a slow loop with progress"},
                    ),
                ],
                delay=self.delay,
            )
        writes = _tool_uses(tour, "Write")
        if step == 2:
            name = scratch_name(self.cwd)
            return turn_of(
                [
                    text_block(
                        f"Next I'll create a scratch file, `{name}`, and then edit it. "
                        "Both changes ask for your approval first."
                    ),
                    tool_use_block(
                        "Write", {"file_path": str(self.cwd / name), "content": SCRATCH_BEFORE}
                    ),
                ],
                delay=self.delay,
            )
        if step == 3 and writes and not _last_results_failed(tour):
            path = str(writes[-1].get("input", {}).get("file_path", ""))
            return turn_of(
                [
                    text_block("The file exists now. Here is the edit:"),
                    tool_use_block(
                        "Edit",
                        {
                            "file_path": path,
                            "old_string": "status: draft\n",
                            "new_string": SCRATCH_AFTER,
                        },
                    ),
                ],
                delay=self.delay,
            )
        return self._summary(tour)

    def _explore(self) -> Turn:
        files = pick_files(self.cwd)
        suffix = main_suffix(self.cwd)
        intro = (
            "This is lathe's **offline demo model**: no API is called and these answers are "
            "scripted (set ANTHROPIC_API_KEY to talk to Claude). It still runs real tools on "
            f"your folder `{self.cwd.name or self.cwd}`. First, several searches and reads at "
            "once:"
        )
        blocks = [
            text_block(intro),
            tool_use_block("Glob", {"pattern": f"**/*{suffix}" if suffix else "*"}),
            tool_use_block("Grep", {"pattern": "TODO|FIXME", "output_mode": "count"}),
        ]
        blocks += [
            tool_use_block("Read", {"file_path": str(self.cwd / f), "limit": 40}) for f in files
        ]
        return turn_of(blocks, delay=self.delay)

    def _summary(self, tour: list[dict[str, Any]]) -> Turn:
        reads = [str(b.get("input", {}).get("file_path", "")) for b in _tool_uses(tour, "Read")]
        edited = bool(_tool_uses(tour, "Edit")) and not _last_results_failed(tour)
        lines = [
            "That was the tour of lathe's **offline demo**:",
            "",
            f"- searched the folder and read {len(reads)} file(s) in one turn, concurrently",
            "- ran a long command with live progress",
        ]
        if edited:
            lines.append(
                "- wrote and edited a scratch file after asking you (delete it when you like)"
            )
        else:
            lines.append("- proposed file changes; they were not all approved, and that is fine")
        lines += ["", "Set ANTHROPIC_API_KEY and restart lathe to work with a real model."]
        return turn_of([text_block("\n".join(lines))], delay=self.delay)


def make_demo_client(cwd: str | Path, *, max_retries: int = 2) -> AsyncAnthropic:
    return make_scripted_client(DemoSource(cwd), max_retries=max_retries)
