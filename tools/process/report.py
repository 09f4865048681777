"""Turning a finished command into the text the model reads (inline, or persisted when large)."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path

from tools.persisted import PREVIEW_CHARS, make_preview, persisted_message
from tools.process.capture import OutputCapture
from tools.process.limits import cap_note


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
    Output that could not be kept (a full disk) or went past the cap is said so, after the notes;
    the command's own exit status is reported either way.
    """
    note_text = "\n".join(n for n in notes if n)
    if not stdout.is_spilled and not stderr.is_spilled:
        parts = [stdout.text().rstrip("\n"), stderr.text().rstrip("\n"), note_text]
        text = "\n".join(p for p in parts if p)
        if len(text) <= limit:
            return Report(text or "(No output)", len(text), None)
    total = _joined_len([stdout.total_chars, stderr.total_chars, len(note_text)])
    problem = stdout.spill_error or stderr.spill_error
    if problem is None:
        try:
            _persist(stdout, stderr, note_text, persist_path)
        except OSError as exc:
            problem = f"{exc.strerror or exc} ({persist_path})"
    if problem is not None:
        return _unsaved(stdout, stderr, note_text, total, problem)
    head = "\n".join(p for p in (stdout.head, stderr.head, note_text) if p)
    preview = make_preview(head[: PREVIEW_CHARS * 2], PREVIEW_CHARS)
    text = persisted_message(total, persist_path, preview)
    if note_text:
        # The exit code and other notes must not hide in the file: the model reads them here too.
        text += "\n" + note_text
    for name, capture in (("stdout", stdout), ("stderr", stderr)):
        if capture.capped:
            # What is past the cap is in no file: its end is shown here.
            end = capture.tail[-_CAPPED_TAIL_CHARS:]
            text += f"\n{cap_note(capture.max_bytes, capture.total_chars, name)} It ended:\n{end}"
    return Report(text, total, str(persist_path))


_CAPPED_TAIL_CHARS = 2000


def _persist(stdout: OutputCapture, stderr: OutputCapture, note_text: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    same_file = stdout.is_spilled and stdout.spill_path == path
    with open(path, "a" if same_file else "w", encoding="utf-8", errors="replace") as out:
        wrote = stdout.total_chars > 0
        if not same_file:
            stdout.copy_to(out)
        for part in (stderr, note_text):
            size = part.total_chars if isinstance(part, OutputCapture) else len(part)
            if not size:
                continue
            if wrote:
                out.write("\n")
            if isinstance(part, OutputCapture):
                part.copy_to(out)
            else:
                out.write(part)
            wrote = True
    if stderr.is_spilled and stderr.spill_path != path:
        try:
            os.unlink(stderr.spill_path)
        except OSError:
            pass


def _unsaved(
    stdout: OutputCapture, stderr: OutputCapture, note_text: str, total: int, problem: str
) -> Report:
    """The report when the output could not be written: its first and last parts, inline."""
    parts = []
    for capture in (stdout, stderr):
        if not capture.total_chars:
            continue
        if capture.total_chars <= len(capture.head) + len(capture.tail):
            parts.append(capture.head + capture.tail[len(capture.head) - capture.total_chars :])
            continue
        omitted = capture.total_chars - len(capture.head) - len(capture.tail)
        parts.append(f"{capture.head}\n[... {omitted} characters not kept ...]\n{capture.tail}")
    if note_text:
        parts.append(note_text)
    parts.append(
        f"The output ({total} characters) could not be saved: {problem}. Only its first and "
        "last parts are shown; the command itself ran to the end."
    )
    return Report("\n".join(p.rstrip("\n") for p in parts if p), total, None)
