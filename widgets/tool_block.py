"""One tool call in the conversation: status icon, name, input summary, elapsed time, and a result
that collapses (click it, or press Enter on it) — a diff for edits, the output tail for Bash."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rich.console import Group, RenderableType
from rich.text import Text
from textual.binding import Binding
from textual.reactive import var
from textual.widget import Widget

from widgets.diff_view import render_diff

ToolStatus = Literal["queued", "running", "done", "error", "denied", "interrupted"]

ICONS: dict[str, tuple[str, str]] = {
    "queued": ("○", "dim"),
    "running": ("◐", "lathe.busy"),
    "done": ("●", "lathe.ok"),
    "error": ("✗", "lathe.failed"),
    "denied": ("⊘", "lathe.failed"),
    "interrupted": ("■", "lathe.stopped"),
}
COLLAPSED_LINES = 3
EXPANDED_LINES = 60
TAIL_LINES = 5


@dataclass
class ToolCallState:
    """Everything the block shows. The TUI fills it from executor events."""

    tool_use_id: str
    name: str
    summary: str = ""
    status: ToolStatus = "queued"
    elapsed: float | None = None
    result_text: str = ""
    diff: str = ""
    output_tail: str = ""

    @property
    def finished(self) -> bool:
        return self.status not in ("queued", "running")


def format_elapsed(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m {rest:02d}s"


def _clip(lines: list[str], limit: int) -> tuple[list[str], int]:
    return lines[:limit], max(0, len(lines) - limit)


def render_tool(state: ToolCallState, expanded: bool) -> RenderableType:
    icon, colour = ICONS[state.status]
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append(f"{icon} ", style=colour)
    head.append(state.name, style="bold")
    if state.summary:
        head.append(f"  {state.summary}", style="")
    if state.elapsed is not None:
        head.append(f"  {format_elapsed(state.elapsed)}", style="dim")
    elif state.status == "running":
        head.append("  running…", style="dim")
    parts: list[RenderableType] = [head]
    body = _body(state, expanded)
    if body is not None:
        parts.append(body)
    return Group(*parts)


def _body(state: ToolCallState, expanded: bool) -> RenderableType | None:
    if state.diff and state.status == "done":
        return render_diff(state.diff, EXPANDED_LINES if expanded else 20)
    if state.output_tail and not state.finished:
        lines = state.output_tail.rstrip("\n").splitlines()[-TAIL_LINES:]
        # Always TAIL_LINES high while running: the block does not grow line by line, so a new
        # output line is a repaint, never a relayout of the conversation.
        lines += [""] * (TAIL_LINES - len(lines))
        return Text("\n".join(f"  {line}" for line in lines), style="dim", no_wrap=True)
    source = state.result_text or state.output_tail
    if not source or not state.finished:
        return None
    all_lines = source.rstrip("\n").splitlines() or [""]
    if state.name == "Bash" and not expanded:
        shown = all_lines[-TAIL_LINES:]
        hidden = len(all_lines) - len(shown)
        prefix = [f"… {hidden} earlier lines (click to expand)"] if hidden else []
        lines = prefix + shown
    else:
        shown, hidden = _clip(all_lines, EXPANDED_LINES if expanded else COLLAPSED_LINES)
        lines = shown + (
            [f"… +{hidden} lines (click to expand)"] if hidden and not expanded else []
        )
        if hidden and expanded:
            lines.append(f"… +{hidden} more lines")
    style = "lathe.failed" if state.status in ("error", "denied") else "dim"
    text = Text(style=style, no_wrap=True, overflow="ellipsis")
    for i, line in enumerate(lines):
        text.append(("⎿ " if i == 0 else "  ") + line)
        if i < len(lines) - 1:
            text.append("\n")
    return text


class ToolBlock(Widget, can_focus=True):
    """A single widget per call: cheap to mount, cheap to freeze (see Conversation)."""

    DEFAULT_CSS = """
    ToolBlock {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
    }
    ToolBlock:focus { background: $boost; }
    ToolBlock:hover { background: $boost; }
    """
    BINDINGS = [Binding("enter,space", "toggle_expanded", "Expand", show=False)]

    # Expanded shows up to EXPANDED_LINES of the result; `-expanded` lets a theme style it.
    expanded: var[bool] = var(False, toggle_class="-expanded")

    def __init__(self, state: ToolCallState, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = state

    def render(self) -> RenderableType:
        return render_tool(self.state, self.expanded)

    def frozen(self) -> RenderableType:
        return render_tool(self.state, False)

    @property
    def finished(self) -> bool:
        return self.state.finished

    def update_state(self, **changes: object) -> None:
        had_tail = bool(self.state.output_tail)
        for key, value in changes.items():
            setattr(self.state, key, value)
        # More output keeps the block's height (the tail has a fixed height): skip the layout
        # pass, the costly part when 16 tools report 50 times a second.
        same_height = set(changes) == {"output_tail"} and had_tail
        self.refresh(layout=not same_height)

    def watch_expanded(self) -> None:
        self.refresh(layout=True)

    # Not `action_toggle`: Textual's DOMNode has that action already (it takes an attribute name).
    def action_toggle_expanded(self) -> None:
        self.expanded = not self.expanded

    def on_click(self) -> None:
        self.action_toggle_expanded()
