"""The blocks one model response put on screen, so a response the engine abandons
(AttemptAbandoned: the stream broke and nothing of it was kept) can be taken back: its partial
answer, thinking and tool blocks are replaced by one dimmed "failed attempt" block.

What belongs to the attempt is whatever the conversation gained since its request went out
(RequestStarted), notices excepted: a hook's message or a warning stays where it was."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.api import AttemptAbandoned
from widgets.failed_attempt import FailedAttemptBlock
from widgets.message_blocks import NoticeBlock
from widgets.tool_block import ToolBlock

if TYPE_CHECKING:
    from textual.widget import Widget

    from widgets.conversation import Conversation


class AttemptBlocks:
    def __init__(self) -> None:
        # The live blocks before the current request (None: no request seen yet).
        self.before: set[int] | None = None

    def start(self, conversation: Conversation) -> None:
        """A new request went out: what is added from now on belongs to its attempt."""
        self.before = {id(b) for b in conversation.live_blocks}

    def blocks(self, conversation: Conversation) -> list[Widget]:
        before = self.before
        if before is None:
            return []
        return [
            b
            for b in conversation.live_blocks
            if id(b) not in before and not isinstance(b, NoticeBlock)
        ]

    def abandon(self, event: AttemptAbandoned, conversation: Conversation) -> None:
        blocks = self.blocks(conversation)
        self.before = None
        if not blocks:
            return  # it failed before anything was shown (a 429 at the start)
        from widgets.assistant_block import AssistantBlock

        text = "".join(b.markdown_text for b in blocks if type(b) is AssistantBlock)
        tools = [
            f"{b.state.name} {b.state.summary}".strip() for b in blocks if isinstance(b, ToolBlock)
        ]
        conversation.replace_blocks(blocks, FailedAttemptBlock(text, tools, event.retrying))
