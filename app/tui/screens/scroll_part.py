"""A dialog's one long part (a plan, a question's options) scrolls by key and says what is below.

The permission dialog's preview did this alone; the plan and question dialogs had a part that
`dialog_fit` sized to the rows left but nothing moved it, so a 59-step plan could be approved
with steps 7-59 unread (tui-r4 F3, F9). Each dialog binds PgUp/PgDn/Home/End to `scroll_part`
and shows `below_words` under the part, recounted on every scroll.
"""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual.widget import Widget

from widgets.counts import more_lines

Where = Literal["page_up", "page_down", "home", "end"]


def hidden_rows(part: Widget) -> int:
    """The part's rows that do not fit its height."""
    return max(0, part.virtual_size.height - part.scrollable_content_region.height)


def below_words(part: Widget, what: str) -> Text | None:
    """The line under the part: how many rows are below, or that its end shows; None when the
    whole part fits (no line)."""
    hidden = hidden_rows(part)
    if not hidden:
        return None
    below = max(0, hidden - round(part.scroll_y))
    if below:
        return Text(f"… {more_lines(below)} below (PgDn scrolls)", style="dim")
    return Text(f"end of the {what} (PgUp scrolls back)", style="dim")


def scroll_part(part: Widget, where: Where) -> None:
    if where == "page_down":
        part.scroll_page_down(animate=False)
    elif where == "page_up":
        part.scroll_page_up(animate=False)
    elif where == "home":
        part.scroll_home(animate=False)
    else:
        part.scroll_end(animate=False)
