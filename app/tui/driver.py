"""Textual's Linux driver, with an output that survives the loss of the terminal.

Textual writes the screen from a thread; when the terminal hangs up (a closed window or tmux pane)
that write fails with EIO, the thread dies, its bounded queue fills, and the next frame blocks the
event loop for ever, so nothing can stop the turn or close the session. Here a failed write marks
the terminal lost and later output is dropped: the loop keeps running and the TUI ends cleanly
(app/tui/exit_watch.py).
"""

from __future__ import annotations

from typing import IO, Any

from textual.drivers import linux_driver
from textual.drivers.linux_driver import LinuxDriver


class TerminalOutput:
    """A file for Textual's writer thread that drops output once the terminal is gone."""

    def __init__(self, file: IO[str]) -> None:
        self._file = file
        self.lost = False

    def write(self, text: str) -> int:
        if not self.lost:
            try:
                self._file.write(text)
            except (OSError, ValueError):
                self.lost = True
        return len(text)

    def flush(self) -> None:
        if not self.lost:
            try:
                self._file.flush()
            except (OSError, ValueError):
                self.lost = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


class LatheDriver(LinuxDriver):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self._file is not None:
            self.output = TerminalOutput(self._file)
            # The writer thread takes its file from here when application mode starts.
            self._file = self.output  # type: ignore[assignment]

    def run_input_thread(self) -> None:
        # LinuxDriver builds its parser from this module name; lathe's tells Alt+Enter from
        # Enter (app/tui/key_parser.py). Only lathe's driver runs in the process.
        from app.tui.key_parser import KeyParser

        linux_driver.XTermParser = KeyParser  # type: ignore[attr-defined,misc]
        super().run_input_thread()
