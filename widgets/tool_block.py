"""One tool call in the conversation: status icon, name, what runs (the command, highlighted, with
its description dimmed beside it; the file and its diff stat; the pattern), the state, the elapsed
time, and a result that collapses (click it, or press Enter on it) — a diff for edits, the output
for commands. `o` opens the whole output in its own scrollable view.

Which end of a long output the collapsed block shows is the tool's declaration (`focus`: a log's
newest lines, a listing's first), never its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rich.console import Group, RenderableType
from rich.text import Text
from textual.binding import Binding
from textual.reactive import var
from textual.widget import Widget

from widgets.code_label import highlighted
from widgets.counts import more_lines
from widgets.diff_view import diff_stat, render_diff
from widgets.tool_head import ToolHead

ToolStatus = Literal["queued", "awaiting", "running", "done", "error", "denied", "interrupted"]

ICONS: dict[str, tuple[str, str]] = {
    "queued": ("○", "dim"),
    "awaiting": ("?", "lathe.busy"),
    "running": ("◐", "lathe.busy"),
    "done": ("●", "lathe.ok"),
    "error": ("✗", "lathe.failed"),
    "denied": ("⊘", "lathe.failed"),
    "interrupted": ("■", "lathe.stopped"),
}
# What the header says while no elapsed time is known.
STATE_WORDS: dict[str, str] = {
    "queued": "queued",
    "awaiting": "awaiting approval",
    "running": "running…",
}
COLLAPSED_LINES = 3
EXPANDED_LINES = 60
TAIL_LINES = 5
HEAD_LINES = 3
# A collapsed edit's diff (made or denied) shows this many lines; expanded, EXPANDED_LINES.
DIFF_LINES = 20


@dataclass
class ToolCallState:
    """Everything the block shows. The TUI fills it from the engine's tool-call views.

    `label` is the tool's one-line label (a command, a path, a pattern; "" falls back to
    `summary`), `language` its syntax ("bash" is highlighted), `note` a dimmed aside (Bash's
    description). `outcome` is a plain-words line for a call that did not end normally ("Denied
    by you", "not run: you denied Bash(touch x)", "Interrupted by you"). `full_path` is a file
    with the whole output when `result_text` holds only part of it."""

    tool_use_id: str
    name: str
    summary: str = ""
    status: ToolStatus = "queued"
    elapsed: float | None = None
    result_text: str = ""
    diff: str = ""
    output_tail: str = ""
    label: str = ""
    language: str | None = None
    note: str = ""
    focus: Literal["head", "tail"] = "head"
    outcome: str = ""
    full_path: str | None = None
    # The diff a call awaiting approval would make (its stat shows in the header).
    pending_diff: str = ""
    # The tool's own one-line account of a finished call ("Found 3 files", "3 tool uses ·
    # 12,345 tokens"), shown in the header when the body does not already say it.
    result_summary: str = ""
    # The change the call's input says it makes ("+2 -1"), shown until a diff says it exactly.
    label_stat: str = ""

    @property
    def finished(self) -> bool:
        return self.status not in ("queued", "awaiting", "running")

    @property
    def shows_diff(self) -> bool:
        """An edit that was made, or one the user denied: its diff is the block's body."""
        return bool(self.diff) and self.status in ("done", "denied")

    @property
    def full_text(self) -> str:
        """The output as a whole view shows it (the diff for an edit)."""
        if self.shows_diff:
            return self.diff
        return self.result_text or self.output_tail


def format_elapsed(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m {rest:02d}s"


def label_text(state: ToolCallState) -> Text:
    """The call's label: a shell command highlighted, anything else plain."""
    text = state.label or state.summary
    if not text:
        return Text()
    if state.language:
        # In the theme's colours (lathe.code.* roles), light or dark, repainted on a change.
        return highlighted(text, state.language)
    return Text(text)


def render_tool(state: ToolCallState, expanded: bool) -> RenderableType:
    icon, colour = ICONS[state.status]
    # Collapsed, the head is one row (cut with …); expanded (and in the full view), a long
    # command and its description wrap: the whole call is readable, and searchable.
    head = Text(no_wrap=not expanded, overflow="fold" if expanded else "ellipsis")
    head.append(f"{icon} ", style=colour)
    head.append(state.name, style="bold")
    label = label_text(state)
    if label:
        head.append("  ")
        head.append_text(label)
    if state.note:
        head.append(f"  {state.note}", style="lathe.tool.note")
    stat = diff_stat(state.diff if state.shows_diff else state.pending_diff)
    if not stat and not state.finished:
        stat = state.label_stat  # queued or waiting: what the input says, before a diff
    if stat:
        head.append(f"  {stat}", style="dim")
    aside = None
    if state.result_summary and state.status == "done" and not state.diff:
        aside = Text(f"  {state.result_summary}", style="dim")
        if expanded or _body(state, expanded) is not None:
            head.append_text(aside)
            aside = None
    word = Text(style="dim")
    if state.elapsed is not None and state.finished:
        word.append(f"  {format_elapsed(state.elapsed)}")
    elif state.status in STATE_WORDS:
        word.append(f"  {STATE_WORDS[state.status]}")
    parts: list[RenderableType] = []
    if expanded:
        if aside is not None:
            head.append_text(aside)
        head.append_text(word)
        parts.append(head)
    else:
        # The state is the last thing cut; a result summary with no body under it (a
        # background Bash's "Running in the background (id)") goes to its own ⎿ row rather
        # than be cut (tui-r5 F2).
        parts.append(ToolHead(head, word, aside))
    body = _body(state, expanded)
    if body is not None:
        parts.append(body)
    return Group(*parts)


def _body(state: ToolCallState, expanded: bool) -> RenderableType | None:
    if state.shows_diff:
        diff = render_diff(state.diff, EXPANDED_LINES if expanded else DIFF_LINES)
        if not state.outcome:
            return diff
        # A denied edit: the plain-words line first, then the change that was turned down.
        said = Text(no_wrap=not expanded, overflow="fold" if expanded else "ellipsis")
        said.append("⎿ ", style="lathe.failed")
        said.append(state.outcome, style="lathe.failed")
        return Group(said, diff)
    if state.output_tail and not state.finished:
        lines = state.output_tail.rstrip("\n").splitlines()[-TAIL_LINES:]
        # Always TAIL_LINES high while running: the block does not grow line by line, so a new
        # output line is a repaint, never a relayout of the conversation.
        lines += [""] * (TAIL_LINES - len(lines))
        return Text("\n".join(f"  {line}" for line in lines), style="dim", no_wrap=True)
    if not state.finished:
        return None
    source = state.result_text or state.output_tail
    lines = _shown_lines(source, state.focus, expanded) if source else []
    style = "lathe.failed" if state.status in ("error", "denied") else "dim"
    # Expanded, long lines wrap (a 4,000-character line is read whole); collapsed, each line is
    # one row, so a block never grows past its few lines.
    text = Text(style=style, no_wrap=not expanded, overflow="fold" if expanded else "ellipsis")
    for i, line in enumerate(lines):
        text.append(("⎿ " if i == 0 else "  ") + line)
        text.append("\n")
    if state.outcome:
        word = "lathe.failed" if state.status == "denied" else "lathe.stopped"
        text.append("⎿ " if not lines else "  ", style=style)
        text.append(state.outcome, style=word)
        text.append("\n")
    text.rstrip()
    return text if text.plain else None


def _shown_lines(source: str, focus: str, expanded: bool) -> list[str]:
    """The lines a block shows of an output: collapsed, its focus end (a log's newest lines or a
    listing's first); expanded, up to EXPANDED_LINES from the top. What is left out is counted,
    and `o` shows all of it."""
    all_lines = source.rstrip("\n").splitlines() or [""]
    limit = EXPANDED_LINES if expanded else (TAIL_LINES if focus == "tail" else COLLAPSED_LINES)
    hidden = len(all_lines) - limit
    if hidden <= 0:
        return all_lines
    if expanded:
        # Head and tail: the start and the end of a long output are the parts people look for.
        head, tail = all_lines[: limit - 10], all_lines[-10:]
        middle = len(all_lines) - len(head) - len(tail)
        return [*head, f"… {more_lines(middle)} (o opens the whole output)", *tail]
    if focus == "tail":
        return [f"… {hidden} earlier lines (Enter expands, o opens all)", *all_lines[-limit:]]
    return [*all_lines[:limit], f"… +{hidden} lines (Enter expands, o opens all)"]


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
    BINDINGS = [
        Binding("enter,space", "toggle_expanded", "Expand", show=False),
        Binding("o", "open_output", "Open output", show=False),
    ]

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

    def action_open_output(self) -> None:
        """The whole output in its own scrollable view (long lines wrapped)."""
        from widgets.output_view import OutputView

        state = self.state
        if not state.finished or not (state.full_text or state.full_path):
            return
        title = f"{state.name}  {state.label or state.summary}".strip()
        self.app.push_screen(OutputView(title, state.full_text, state.full_path))

    def on_click(self) -> None:
        self.action_toggle_expanded()
