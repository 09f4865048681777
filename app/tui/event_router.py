"""Engine events in, widget calls out: the one place that knows both sides.

The App owns one EventRouter; the session's sink is the App's `handle_engine_event`, which hands
every event here. It owns the state of what is being drawn: the streaming answer, the tool
blocks still open, the output tails waiting for a repaint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from textual.content import Content

from app.engine.api import (
    MAX_TAIL_CHARS,
    AppEvent,
    AssistantMessage,
    AttemptAbandoned,
    CompactionFailed,
    CompactionFinished,
    CompactionStarted,
    ContextUpdated,
    EngineEvent,
    ErrorOccurred,
    Interrupted,
    Notice,
    PermissionRequested,
    QueuedPromptsDelivered,
    RedactedThinking,
    RequestStarted,
    Retrying,
    StreamUsage,
    TextDelta,
    ThinkingDelta,
    ToolCallUpdated,
    TurnEnded,
    TurnStarted,
    UsageUpdated,
    message_text,
)
from app.tui.attempts import AttemptBlocks
from app.tui.history import ReplayedHistory, archived_renderables
from app.tui.tail_repaint import TailRepaints
from app.tui.translate import finished_fields, plan_items, queued_state, waiting_fields
from widgets.message_blocks import NoticeBlock, NoticeLevel, UserBlock
from widgets.thinking_block import ThinkingBlock, thinking_blocks
from widgets.tool_block import ToolBlock

if TYPE_CHECKING:
    from app.tui.app import LatheApp
    from widgets.assistant_block import AssistantBlock

INTERRUPTED_TEXT = "Interrupted · tell lathe what to do instead"
# A deny that ended the turn: the notice, the status line and the prompt's placeholder say it.
DENIED_TEXT = "Denied · tell lathe what to do instead"


# A resumed conversation keeps only its last few blocks as widgets (what fits on a screen); the
# rest is archived data. Every live widget is layout work on each later append.
REPLAY_LIVE_EVENTS = 12


class EventRouter:
    def __init__(self, app: LatheApp) -> None:
        self.app = app
        self.assistant: AssistantBlock | None = None
        self.tool_blocks: dict[str, ToolBlock] = {}
        # Running blocks' output tails, repainted a few per frame (app/tui/tail_repaint.py).
        self.tails = TailRepaints(app, self._repaint_tail)
        # Whether this response's text arrived as deltas: then AssistantMessage adds nothing (its
        # text is already on screen, possibly split around tool blocks); else it is shown whole.
        self._streamed = False
        # The thinking block being streamed (and its content index); whether this response's
        # thinking arrived as events (else AssistantMessage's thinking blocks are shown).
        self.thinking: ThinkingBlock | None = None
        self._thinking_index = -1
        self._thought_streamed = False
        # What the current model response showed, taken back if the engine abandons it.
        self.attempt = AttemptBlocks()
        # What the status line keeps saying once the turn ended ("Denied · …"), and the prompt's
        # own placeholder while another one shows.
        self._stopped_text = ""
        self._placeholder: str | Content | None = None

    def set_activity(self, text: str) -> None:
        """What the model is doing, on the busy line ("" stops it: done, interrupted, failed)."""
        busy = self.app.main.busy
        if not text:
            busy.stop()
        elif text != busy.label:
            busy.set_label(text)

    def handle(self, event: EngineEvent | ReplayedHistory) -> None:
        """The session's sink. Runs on the App's loop; must stay cheap (no awaiting)."""
        screen = self.app.main
        match event:
            case ReplayedHistory():
                self._load_history(event.events)
            case TextDelta():
                self._finish_thinking()
                self._streamed = True
                if self.assistant is None:
                    from widgets.assistant_block import AssistantBlock

                    self.assistant = AssistantBlock()
                    screen.conversation.add_block(self.assistant)
                    self.set_activity("Writing…")
                self.assistant.feed(event.text)
            case ToolCallUpdated():
                self._tool_call(event)
            case TurnStarted():
                self._show_stopped("")
                self.assistant = None
                screen.conversation.add_block(UserBlock(event.prompt))
                screen.busy.start("Thinking…")
            case RequestStarted():
                self._finish_thinking()
                self.assistant = None
                self._streamed = False
                self._thought_streamed = False
                self.attempt.start(screen.conversation)
                if event.model:
                    screen.status_bar.set(model=event.model)
                self.set_activity("Thinking…")
            case ThinkingDelta():
                self._think(event.text, event.index)
                self.set_activity("Thinking…")
            case RedactedThinking():
                self._finish_thinking()
                self._thought_streamed = True
                screen.conversation.add_block(ThinkingBlock(redacted=True, finished=True))
            case StreamUsage():
                screen.busy.set_tokens(event.input_tokens, event.output_tokens)
            case AssistantMessage():
                if not self._thought_streamed:
                    self._show_thinking_of(event.message)
                self._take_back_unkept(event.message)
                self._finish_assistant(None if self._streamed else message_text(event.message))
                self._streamed = False
            case PermissionRequested():
                self.app.permissions.enqueue(event.question)
            case AttemptAbandoned():
                self._abandon(event)
            case Retrying():
                self.notice(
                    f"Retrying in {_seconds(event.delay_s)} (attempt {event.attempt}): {event.reason}",
                    "retry",
                )
                # The countdown apart from the turn's time: "Retrying in 0.4s · 3s elapsed".
                self.app.main.busy.count_down("Retrying", event.delay_s)
            case UsageUpdated():
                screen.status_bar.set(
                    input_tokens=event.input_tokens,
                    output_tokens=event.output_tokens,
                    cache_read_tokens=event.cache_read_tokens,
                    cost_usd=event.cost_usd,
                )
                self.app.usage = event
            case Notice():
                self.notice(event.text, event.level)
            case QueuedPromptsDelivered():
                self._finish_assistant(None)
                for prompt in event.prompts:
                    screen.conversation.add_block(UserBlock(prompt))
            case ErrorOccurred():
                self._finish_assistant(None)
                self.notice(event.message, "error")
                self.set_activity("")
            case Interrupted():
                self._finish_assistant(None)
                self.notice(DENIED_TEXT if event.denied else INTERRUPTED_TEXT, "interrupt")
                self._stopped_text = DENIED_TEXT if event.denied else ""
                self.set_activity("")
                self.app.permissions.drop_resolved()
            case TurnEnded():
                self._finish_assistant(None)
                screen.progress.end_turn()
                self.set_activity("")
                self._show_stopped(self._stopped_text)
                self.app.permissions.drop_resolved()
            case ContextUpdated():
                screen.status_bar.set(context_left=event.left_fraction)
            case CompactionStarted():
                self._finish_assistant(None)
                self.set_activity("Compacting…")
            case CompactionFinished():
                from widgets.compaction_block import CompactionBlock

                self._finish_assistant(None)
                screen.conversation.add_block(
                    CompactionBlock(
                        event.trigger,
                        event.tokens_before,
                        event.tokens_after,
                        event.summary,
                        event.duration_s,
                    )
                )
                self.set_activity("")
            case CompactionFailed():
                self.notice(f"Compaction failed: {event.message}", "error")
                self.set_activity("")
            case AppEvent():
                items = plan_items(event.payload)
                if items is not None:
                    screen.plan.set_items(items)
            case _:
                pass  # RawStreamEvent: only the headless stream-json printer wants these

    def _tool_call(self, event: ToolCallUpdated) -> None:
        view, screen = event.view, self.app.main
        if view.parent_tool_use_id is not None:
            return  # a subagent's call: its Agent call's row and block show it
        tool_use_id = view.tool_use_id
        match event.change:
            case "queued":
                self._finish_assistant(None)
                state = queued_state(view)
                new = ToolBlock(state)
                self.tool_blocks[tool_use_id] = new
                screen.conversation.add_block(new)
                screen.progress.queued(
                    tool_use_id, view.name, state.label or view.title, stat=state.label_stat
                )
            case "started":
                # Taken by the executor, being checked (hooks, the permission decision): shown as
                # running, but its clock waits for the "running" change.
                started = self.tool_blocks.get(tool_use_id)
                if started is not None:
                    started.update_state(status="running")
                screen.progress.checking(tool_use_id)
                self.set_activity("Running tools…")
            case "running":
                # Allowed, and its tool runs now: the panel's clock counts from here (the
                # engine's moment), so the permission step and an approval wait are not in it.
                screen.progress.started(tool_use_id, view.started_at)
            case "progressed":
                screen.progress.progressed(
                    tool_use_id, view.progress_text, event.output, view.fraction
                )
                block = self.tool_blocks.get(tool_use_id)
                if block is not None and event.output:
                    # The panel shows the newest line at once; the block's tail in the
                    # conversation is repainted at most TAIL_HZ times a second, and only a couple
                    # of blocks in one frame, so 16 busy tools never make one frame redraw 16.
                    block.state.output_tail = (block.state.output_tail + event.output)[
                        -MAX_TAIL_CHARS:
                    ]
                    self.tails.mark(tool_use_id)
            case "finished":
                done = self.tool_blocks.pop(tool_use_id, None)
                self.tails.forget(tool_use_id)
                if done is not None:
                    done.update_state(**finished_fields(view))
                screen.progress.finished(
                    tool_use_id,
                    view.elapsed,
                    view.status != "done",
                    stopped=view.status in ("denied", "interrupted"),
                )
            case "awaiting_approval" | "answered":
                # Waiting for the user is not running: the block says so and the panel does not
                # count it. Answered: back to being checked (its clock starts at "running"), or,
                # for a question a running tool asked, running again (the engine took the wait
                # off its started_at).
                waiting = self.tool_blocks.get(tool_use_id)
                if waiting is not None:
                    waiting.update_state(**waiting_fields(view))
                if event.change == "awaiting_approval":
                    screen.progress.awaiting(tool_use_id)
                elif view.status == "running":
                    screen.progress.started(tool_use_id, view.started_at)
                elif view.status == "checking":
                    screen.progress.checking(tool_use_id)

    def _show_stopped(self, text: str) -> None:
        """Say why the turn stopped in the status line and the prompt's placeholder, until the
        user writes ("" restores them)."""
        self._stopped_text = text
        prompt = self.app.main.prompt
        if self._placeholder is None:
            self._placeholder = prompt.placeholder
        prompt.placeholder = text or self._placeholder

    def _abandon(self, event: AttemptAbandoned) -> None:
        """The response broke and nothing of it was kept: its blocks become one failed-attempt
        block, so the retried answer is not shown twice."""
        self.assistant = None
        self._streamed = False
        conversation = self.app.main.conversation
        for block in self.attempt.blocks(conversation):
            if isinstance(block, ToolBlock):
                self.tool_blocks.pop(block.state.tool_use_id, None)
        self.attempt.abandon(event, conversation)

    def _repaint_tail(self, tool_use_id: str) -> None:
        block = self.tool_blocks.get(tool_use_id)
        if block is not None:
            block.update_state(output_tail=block.state.output_tail)

    def _load_history(self, events: tuple[EngineEvent, ...]) -> None:
        """Old blocks go to the archive as renderables; the newest are shown as live blocks."""
        conversation = self.app.main.conversation
        keep = max(0, len(events) - REPLAY_LIVE_EVENTS)
        # Cut where a block starts, so a tool's queued and finished events stay together.
        while 0 < keep < len(events) and _finishes_a_call(events[keep]):
            keep += 1
        conversation.load_history(archived_renderables(events[:keep]))
        for event in events[keep:]:
            self.handle(event)
        self.set_activity("")  # a replayed prompt is history, not a turn at work
        # The replayed calls are history, not work in progress: the panel shows none of them.
        self.app.main.progress.clear()

    def _think(self, text: str, index: int) -> None:
        self._thought_streamed = True
        if self.thinking is None or index != self._thinking_index:
            self._finish_thinking()
            self.thinking = ThinkingBlock()
            self._thinking_index = index
            self.app.main.conversation.add_block(self.thinking)
        self.thinking.feed(text)

    def _finish_thinking(self) -> None:
        if self.thinking is not None:
            self.thinking.finish()
            self.thinking = None

    def _show_thinking_of(self, message: Mapping[str, Any]) -> None:
        """A message that arrived whole (a resumed conversation's tail): its thinking first."""
        for block in thinking_blocks(message):
            self.app.main.conversation.add_block(
                ThinkingBlock(
                    block.get("thinking", ""),
                    redacted=block["type"] == "redacted_thinking",
                    finished=True,
                )
            )

    def _take_back_unkept(self, message: Mapping[str, Any]) -> None:
        """A stream cut after a complete tool call: the text streamed after it that the kept
        message lacks leaves the screen (app/tui/kept_text.py)."""
        from app.tui.kept_text import kept_part

        block = self.assistant
        if block is None or not self._streamed:
            return
        kept = kept_part(block.markdown_text, message)
        if kept is None:
            return
        if kept:
            block.finish(kept)
        else:
            self.assistant = None
            self.app.main.conversation.remove_block(block)

    def _finish_assistant(self, full_text: str | None) -> None:
        self._finish_thinking()
        block = self.assistant
        self.assistant = None
        if block is not None:
            block.finish(full_text)
        elif full_text:
            from widgets.assistant_block import AssistantBlock

            done = AssistantBlock(full_text)
            done.finish()
            self.app.main.conversation.add_block(done)

    def notice(self, text: str, level: NoticeLevel) -> None:
        self.app.main.conversation.add_block(NoticeBlock(text, level))


def _finishes_a_call(event: EngineEvent) -> bool:
    return isinstance(event, ToolCallUpdated) and event.change == "finished"


def _seconds(delay: float) -> str:
    """ "0.4s", "2.5s", "12s": a short backoff must not read as "0s"."""
    return f"{delay:.1f}s" if delay < 10 else f"{delay:.0f}s"
