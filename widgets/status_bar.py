"""One line at the bottom: model, permission mode, tokens, cache hits, cost, folder, git branch."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.text import Text
from textual.widget import Widget

MODE_STYLES = {
    "default": "dim",
    "acceptEdits": "bold green",
    "plan": "bold cyan",
    "bypassPermissions": "bold red",
    "dontAsk": "bold yellow",
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


def human_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1_000:
        return f"{n / 1_000:.1f}k"
    return str(n)


def render_status(info: StatusInfo) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    if info.activity:
        text.append(f"{info.activity}  ", style="bold yellow")
    text.append(info.model or "no model", style="bold")
    text.append("  ⏵⏵ ")
    text.append(info.permission_mode, style=MODE_STYLES.get(info.permission_mode, ""))
    text.append(
        f"  ↑{human_tokens(info.input_tokens)} ↓{human_tokens(info.output_tokens)}",
        style="",
    )
    text.append(f"  cache {human_tokens(info.cache_read_tokens)}", style="dim")
    text.append(f"  ${info.cost_usd:.4f}")
    if info.folder:
        text.append(f"  {info.folder}", style="dim")
    if info.branch:
        text.append(f"  ⎇ {info.branch}", style="magenta")
    if not info.mouse_captured:
        text.append("  [mouse off: select with the terminal]", style="reverse")
    return text


class StatusBar(Widget):
    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $foreground;
    }
    """

    def __init__(self, info: StatusInfo | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.info = info or StatusInfo()

    def set(self, **changes: object) -> None:
        self.info = replace(self.info, **changes)  # type: ignore[arg-type]
        self.refresh()

    def render(self) -> Text:
        return render_status(self.info)
