"""The blocks one model response put on screen, so a response the engine abandons
(AttemptAbandoned: the stream broke and nothing of it was kept) can be taken back: its partial
answer and tool blocks are replaced by one dimmed "failed attempt" block."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.api import AttemptAbandoned
from widgets.failed_attempt import FailedAttemptBlock
from widgets.tool_block import ToolBlock

if TYPE_CHECKING:
    from textual.widget import Widget

    from widgets.conversation import Conversation


class AttemptBlocks:
    def __init__(self) -> None:
        self.blocks: list[Widget] = []

    def start(self) -> None:
        """A new request went out: what comes now belongs to its attempt."""
        self.blocks = []

    def add(self, block: Widget) -> None:
        self.blocks.append(block)

    def abandon(self, event: AttemptAbandoned, conversation: Conversation) -> None:
        blocks, self.blocks = self.blocks, []
        if not blocks:
            return  # it failed before anything was shown (a 429 at the start)
        text = "".join(getattr(b, "markdown_text", "") for b in blocks)
        tools = [
            f"{b.state.name} {b.state.summary}".strip() for b in blocks if isinstance(b, ToolBlock)
        ]
        conversation.replace_blocks(blocks, FailedAttemptBlock(text, tools, event.retrying))
