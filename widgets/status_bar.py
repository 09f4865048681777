"""One line at the bottom: model, permission mode, context left, tokens, cache hits, cost, folder,
git branch.

The context meter's colour comes from the theme ($success, $warning, $error through component
classes), so every theme, light or dark, colours it its own way."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from rich.style import Style
from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget

from widgets.legible_strip import legible_strip

MODE_STYLES = {
    "default": "dim",
    "acceptEdits": "lathe.mode.acceptEdits",
    "plan": "lathe.mode.plan",
    "bypassPermissions": "lathe.mode.bypassPermissions",
    "dontAsk": "lathe.mode.dontAsk",
}


@dataclass(frozen=True)
class StatusInfo:
    model: str = ""
    permission_mode: str = "default"
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float = 0.0
    folder: str = ""
    branch: str = ""
    activity: str = ""
    mouse_captured: bool = True
    # Share of the model's context window left (None: not known yet, nothing shown).
    context_left: float | None = None
    # The `statusLine` command's line (Claude Code's setting): shown instead of the built-in
    # parts, after the activity and the permission mode, which stay (they say what runs).
    custom: str = ""


def human_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1_000:
        return f"{n / 1_000:.1f}k"
    return str(n)


CONTEXT_LEVELS = ("ok", "low", "critical")


def context_level(left: float) -> str:
    """ok above half the window left, low above a fifth, critical below (compaction is near)."""
    if left > 0.5:
        return "ok"
    if left > 0.2:
        return "low"
    return "critical"


# The parts of the line, most important first: on a narrow screen the last ones go first, so the
# line never wraps and what says what runs (activity, model, mode, context left) stays.
_DROP_ORDER = ("cache", "folder", "tokens", "branch", "cost")


def render_status(
    info: StatusInfo, context_styles: Mapping[str, Style] | None = None, width: int | None = None
) -> Text:
    """The line; `width`: the cells it has (parts dropped from the least important, then cut
    with an ellipsis), None: the whole line."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if info.activity:
        text.append(f"{info.activity}  ", style="lathe.activity")
    if info.custom:
        custom = Text.from_ansi(info.custom, no_wrap=True)
        custom.append("  ⏵⏵ ")
        custom.append(info.permission_mode, style=MODE_STYLES.get(info.permission_mode, ""))
        return _cut(text.append_text(custom), width)
    parts = _parts(info, context_styles)
    for name in _DROP_ORDER:
        if width is None or _length(text, parts) <= width:
            break
        if name == "folder" and parts.get("folder") and "/" in info.folder.strip("/"):
            # First the folder's last name only, then nothing.
            short = Text(f"  …/{info.folder.rstrip('/').rsplit('/', 1)[-1]}", style="dim")
            if _length(text, {**parts, "folder": short}) <= width:
                parts["folder"] = short
                break
        parts.pop(name, None)
    for part in parts.values():
        text.append_text(part)
    return _cut(text, width)


def _parts(info: StatusInfo, context_styles: Mapping[str, Style] | None) -> dict[str, Text]:
    """The line's parts in their order on screen."""
    parts: dict[str, Text] = {}
    head = Text().append(info.model or "no model", style="bold")
    head.append("  ⏵⏵ ")
    head.append(info.permission_mode, style=MODE_STYLES.get(info.permission_mode, ""))
    parts["head"] = head
    if info.context_left is not None:
        left = max(0.0, min(1.0, info.context_left))
        style = (context_styles or {}).get(context_level(left), Style())
        parts["context"] = Text("  ").append(f"context {left:.0%} left", style=style)
    parts["tokens"] = Text(
        f"  ↑{human_tokens(info.input_tokens)} ↓{human_tokens(info.output_tokens)}"
    )
    parts["cache"] = Text(f"  cache {human_tokens(info.cache_read_tokens)}", style="dim")
    parts["cost"] = Text(f"  ${info.cost_usd:.4f}")
    if info.folder:
        parts["folder"] = Text(f"  {info.folder}", style="dim")
    if info.branch:
        parts["branch"] = Text(f"  ⎇ {info.branch}", style="lathe.branch")
    if not info.mouse_captured:
        parts["mouse"] = Text("  [mouse off: select with the terminal]", style="reverse")
    return parts


def _length(text: Text, parts: Mapping[str, Text]) -> int:
    return text.cell_len + sum(p.cell_len for p in parts.values())


def _cut(text: Text, width: int | None) -> Text:
    if width is not None and text.cell_len > width:
        text.truncate(width, overflow="ellipsis")
    return text


# WCAG AA for normal text: the status line carries the context meter, the one warning that the
# window fills (tui-r5 F8).
STATUS_CONTRAST = 4.5


class StatusBar(Widget):
    COMPONENT_CLASSES = {f"status-bar--context-{level}" for level in CONTEXT_LEVELS}
    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $foreground;
    }
    StatusBar > .status-bar--context-ok { color: $success; }
    StatusBar > .status-bar--context-low { color: $warning; }
    StatusBar > .status-bar--context-critical { color: $error; text-style: bold; }
    """

    def __init__(self, info: StatusInfo | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.info = info or StatusInfo()
        # Told of every change but the custom line's own (the statusLine command's input).
        self.on_change: Callable[[StatusInfo], None] | None = None

    def set(self, **changes: object) -> None:
        self.info = replace(self.info, **changes)  # type: ignore[arg-type]
        self.refresh()
        if self.on_change is not None and set(changes) != {"custom"}:
            self.on_change(self.info)

    def render(self) -> Text:
        styles = None
        if self.info.context_left is not None:
            styles = {
                level: self.get_component_rich_style(f"status-bar--context-{level}")
                for level in CONTEXT_LEVELS
            }
        return render_status(self.info, styles, self.content_size.width or None)

    def render_line(self, y: int) -> Strip:
        # Every drawn colour, whatever its source, at STATUS_CONTRAST or better on the bar.
        return legible_strip(super().render_line(y), STATUS_CONTRAST)
