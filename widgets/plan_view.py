"""The model's todo list, shown as a plan above the prompt while it has items."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widget import Widget


@dataclass(frozen=True)
class PlanItem:
    content: str
    status: str  # pending | in_progress | completed
    active_form: str = ""


MARKS = {
    "pending": ("☐", ""),
    "in_progress": ("◐", "lathe.plan.active"),
    "completed": ("☒", "dim strike"),
}


class PlanView(Widget):
    DEFAULT_CSS = """
    PlanView {
        height: auto;
        max-height: 10;
        padding: 0 1;
        display: none;
    }
    PlanView.-active { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[PlanItem, ...] = ()

    def set_items(self, items: tuple[PlanItem, ...]) -> None:
        self.items = items
        self.set_class(bool(items) and not all(i.status == "completed" for i in items), "-active")
        self.refresh(layout=True)

    def render(self) -> Text:
        done = sum(1 for i in self.items if i.status == "completed")
        text = Text(f"Plan ({done}/{len(self.items)})", style="bold")
        for item in self.items:
            mark, style = MARKS.get(item.status, ("?", ""))
            label = (
                item.active_form
                if item.status == "in_progress" and item.active_form
                else item.content
            )
            text.append(f"\n {mark} {label}", style=style)
        return text
