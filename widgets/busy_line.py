"""The busy line above the prompt while the model works: a spinner, what it is doing, the time
since the turn began, and the tokens of the response as its stream reports them.

    ⠹ Thinking… 12s · ↑ 8.4k ↓ 312 tokens · Esc to interrupt

Nothing in it reads the wall clock on its own: the clock is injected (tests pass a fixed one), the
spinner's frame is derived from that clock, and the repaint ticker is optional (`tick_s=None`: no
timer at all), so a snapshot of a busy screen is the same on every run.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.cells import cell_len
from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
FRAME_S = 0.1


def short_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1_000:
        return f"{n / 1_000:.1f}k"
    return str(n)


def short_elapsed(seconds: float) -> str:
    """ "4s", "1m 05s", "1h 02m": whole seconds, as a glance wants them."""
    whole = int(max(0.0, seconds))
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def seconds_left(seconds: float) -> str:
    """ "0.4s", "2.5s", "12s": a short wait must not read as "0s"."""
    return f"{seconds:.1f}s" if seconds < 10 else f"{seconds:.0f}s"


def render_busy(
    label: str,
    elapsed: float,
    input_tokens: int,
    output_tokens: int,
    hint: str = "",
    width: int | None = None,
    apart: bool = False,
) -> Text:
    """The line, fitted to `width` cells (None: whole): the least useful parts go first — the
    request's input tokens (the context meter has them), then the Esc hint (the welcome line
    names the key), then the tokens, then the time; only then is the label cut, with "…".
    `apart`: the label ends with a time of its own (a retry's countdown), so the elapsed time is
    set apart and named ("Retrying in 0.4s · 3s elapsed"), never glued on ("0.4s 3s")."""
    frame = SPINNER[int(max(0.0, elapsed) / FRAME_S) % len(SPINNER)]
    time_part = f" · {short_elapsed(elapsed)} elapsed" if apart else f" {short_elapsed(elapsed)}"
    tokens = ""
    fewer = ""
    if input_tokens or output_tokens:
        unit = "token" if output_tokens == 1 else "tokens"
        tokens = f" · ↑ {short_tokens(input_tokens)} ↓ {short_tokens(output_tokens)} {unit}"
        fewer = f" · ↓ {short_tokens(output_tokens)} {unit}"
    hint_part = f" · {hint}" if hint else ""
    fits = [
        (time_part, tokens, hint_part),
        (time_part, fewer, hint_part),
        (time_part, fewer, ""),
        (time_part, "", ""),
        ("", "", ""),
    ]
    chosen = fits[-1]
    for parts in fits:
        if width is None or cell_len(f"{frame} {label}" + "".join(parts)) <= width:
            chosen = parts
            break
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{frame} ", style="lathe.spinner")
    text.append(label, style="bold")
    for part in chosen:
        if part:
            text.append(part, style="dim")
    if width is not None and text.cell_len > width:
        text.truncate(width, overflow="ellipsis")
    return text


class BusyLine(Widget):
    """Shown (class `-busy`) from `start()` to `stop()`; hidden and still otherwise."""

    DEFAULT_CSS = """
    BusyLine {
        height: 1;
        padding: 0 1;
        color: $foreground;
        display: none;
    }
    BusyLine.-busy { display: block; }
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        tick_s: float | None = FRAME_S,
        hint: str = "Esc to interrupt",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.tick_s = tick_s
        self.hint = hint
        self.label = ""
        self.started_at: float | None = None
        self.input_tokens = 0
        self.output_tokens = 0
        # A wait with a known end (a retry's backoff): the label counts down to it.
        self.until: float | None = None
        self._ticker: Timer | None = None

    @property
    def busy(self) -> bool:
        return self.started_at is not None

    def start(self, label: str) -> None:
        """The model started working (a new turn): the clock and the tokens start from zero."""
        self.started_at = self.clock()
        self.input_tokens = self.output_tokens = 0
        self.set_label(label)
        self.add_class("-busy")
        if self.tick_s is not None and self._ticker is None and self.is_mounted:
            self._ticker = self.set_interval(self.tick_s, self.refresh)

    def set_label(self, label: str) -> None:
        """What the model is doing now ("Thinking…", "Running tools…"); starts the line if idle."""
        if not self.busy:
            self.start(label)
            return
        self.label = label
        self.until = None
        self.refresh()

    def count_down(self, label: str, delay_s: float) -> None:
        """`label` with the time left to a wait of `delay_s` ("Retrying in 0.4s"), counting down
        on each repaint, then "Retrying now"; the next label ends it."""
        self.set_label(label)
        self.until = self.clock() + delay_s

    def set_tokens(self, input_tokens: int, output_tokens: int) -> None:
        self.input_tokens, self.output_tokens = input_tokens, output_tokens
        self.refresh()

    def stop(self) -> None:
        """Done, interrupted or failed: the line goes, and so does its ticker."""
        self.started_at = None
        self.label = ""
        self.until = None
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self.remove_class("-busy")

    def render(self) -> Text:
        if self.started_at is None:
            return Text()
        now = self.clock()
        elapsed = now - self.started_at
        width = self.content_size.width or None
        label = self.label
        if self.until is not None:
            left = self.until - now
            label = f"{label} in {seconds_left(left)}" if left > 0 else f"{label} now"
        return render_busy(
            label,
            elapsed,
            self.input_tokens,
            self.output_tokens,
            self.hint,
            width,
            apart=self.until is not None,
        )
