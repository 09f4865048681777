"""Turning a finished command into the text the model reads (inline, or persisted when large)."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path

from tools.persisted import PREVIEW_CHARS, make_preview, persisted_message
from tools.process.capture import OutputCapture


@dataclass(frozen=True)
class Report:
    text: str
    total_chars: int
    persisted_path: str | None


def describe_exit(exit_code: int | None) -> str:
    if exit_code is None:
        return ""
    if exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = f"signal {-exit_code}"
        return f"Killed by {name}"
    return f"Exit code {exit_code}" if exit_code != 0 else ""


def _joined_len(parts: list[int]) -> int:
    present = [n for n in parts if n > 0]
    return sum(present) + max(0, len(present) - 1)


def build_report(
    stdout: OutputCapture,
    stderr: OutputCapture,
    notes: list[str],
    *,
    limit: int,
    persist_path: Path,
) -> Report:
    """stdout, then stderr, then notes (exit code, timeout, cwd), separated by newlines.

    Small outputs are returned inline. Larger ones are written whole to `persist_path` and the model
    gets CONTRACT.md's `<persisted-output>` preview. The stdout capture may already have spilled
    into `persist_path` itself, in which case stderr and notes are appended to it, not copied.
    """
    note_text = "\n".join(n for n in notes if n)
    if not stdout.is_spilled and not stderr.is_spilled:
        parts = [stdout.text().rstrip("\n"), stderr.text().rstrip("\n"), note_text]
        text = "\n".join(p for p in parts if p)
        if len(text) <= limit:
            return Report(text or "(No output)", len(text), None)
    total = _joined_len([stdout.total_chars, stderr.total_chars, len(note_text)])
    persist_path.parent.mkdir(parents=True, exist_ok=True)
    same_file = stdout.is_spilled and stdout.spill_path == persist_path
    with open(persist_path, "a" if same_file else "w", encoding="utf-8", errors="replace") as out:
        wrote = stdout.total_chars > 0
        if not same_file:
            stdout.copy_to(out)
        for capture_text in (stderr, note_text):
            size = (
                capture_text.total_chars
                if isinstance(capture_text, OutputCapture)
                else len(capture_text)
            )
            if not size:
                continue
            if wrote:
                out.write("\n")
            if isinstance(capture_text, OutputCapture):
                capture_text.copy_to(out)
            else:
                out.write(capture_text)
            wrote = True
    if stderr.is_spilled and stderr.spill_path != persist_path:
        try:
            os.unlink(stderr.spill_path)
        except OSError:
            pass
    head = "\n".join(p for p in (stdout.head, stderr.head, note_text) if p)
    preview = make_preview(head[: PREVIEW_CHARS * 2], PREVIEW_CHARS)
    text = persisted_message(total, persist_path, preview)
    if note_text:
        # The exit code and other notes must not hide in the file: the model reads them here too.
        text += "\n" + note_text
    return Report(text, total, str(persist_path))
