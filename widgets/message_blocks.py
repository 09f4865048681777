"""The non-tool blocks of the conversation: the user's prompt and notices (info, warning, error,
retry, interrupt). The streaming assistant block lives in `widgets.assistant_block`: it needs the
markdown parser, which is imported only when the first answer arrives (not before the first
frame)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from rich.console import RenderableType
from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:
    from widgets.assistant_block import AssistantBlock

__all__ = ["AssistantBlock", "NoticeBlock", "NoticeLevel", "UserBlock"]

NoticeLevel = Literal["info", "warning", "error", "retry", "interrupt"]
NOTICE_STYLES: dict[str, tuple[str, str]] = {
    "info": ("ℹ", "dim"),
    "warning": ("⚠", "lathe.notice.warning"),
    "error": ("✗", "lathe.notice.error"),
    "retry": ("↻", "lathe.notice.retry"),
    "interrupt": ("■", "lathe.notice.interrupt"),
}


class UserBlock(Static):
    DEFAULT_CSS = """
    UserBlock {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: thick $accent;
        background: $boost;
    }
    """

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(self._renderable())

    def _renderable(self) -> Text:
        return Text("> " + self.text)

    def frozen(self) -> RenderableType:
        return Text("> " + self.text, style="bold")

    finished = True


class NoticeBlock(Static):
    DEFAULT_CSS = """
    NoticeBlock {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
    }
    NoticeBlock.-error { border-left: thick $error; }
    NoticeBlock.-warning, NoticeBlock.-retry, NoticeBlock.-interrupt { border-left: thick $warning; }
    """

    def __init__(self, text: str, level: NoticeLevel = "info") -> None:
        self.text = text
        self.level = level
        super().__init__(self.frozen(), classes=f"-{level}")

    def frozen(self) -> RenderableType:
        icon, style = NOTICE_STYLES[self.level]
        # A span, not the Text's base style: Textual resolves span styles through the console's
        # theme (lathe's roles); a base style string it would parse as its own markup.
        text = Text(f"{icon} {self.text}")
        text.stylize(style)
        return text

    finished = True


def __getattr__(name: str) -> Any:
    # `from widgets.message_blocks import AssistantBlock` keeps working, importing markdown lazily.
    if name == "AssistantBlock":
        from widgets.assistant_block import AssistantBlock

        return AssistantBlock
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
