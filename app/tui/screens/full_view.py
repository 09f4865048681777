"""The full view (Ctrl+O): the whole conversation and every tool's whole output, searchable.

A snapshot of the conversation when it opens (Ctrl+O again later shows what came since). Keys:
/ or Ctrl+F search, Enter in the search box finds, n/N the next/previous match, arrows, PgUp/PgDn,
Home/End (g/G) scroll, Esc closes the search box, then returns to the prompt as it was (the main
screen is only covered, never rebuilt).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from widgets.conversation import Conversation, Deferred
from widgets.full_view import FullDocument, full_source

TITLE = "Full view · / search · n/N next/previous match · Esc back to the prompt"


class FullViewScreen(Screen[None]):
    CSS_PATH = "full_view.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back", id="full_view.back"),
        Binding("slash,ctrl+f", "search", "Search", id="full_view.search"),
        Binding("n", "step(True)", "Next match", id="full_view.next"),
        Binding("N,shift+n", "step(False)", "Previous match", id="full_view.previous"),
        Binding("g", "top", "Top", show=False, id="full_view.top"),
        Binding("G,shift+g", "bottom", "Bottom", show=False, id="full_view.bottom"),
        Binding("ctrl+o", "back", "Back", show=False, id="full_view.close"),
    ]

    def __init__(self, sources: Sequence[Deferred], start: int | None = None):
        super().__init__()
        self.document = FullDocument(sources)
        # The item shown at the top when it opens (None: the end, where the conversation is).
        self.start = start
        self.scroller = VerticalScroll(self.document, id="full-scroll")
        self.search_box = Input(placeholder="Search (Enter finds, Esc closes)", id="full-search")
        self.status = Static("", id="full-status")

    def compose(self) -> ComposeResult:
        yield Static(TITLE, id="full-title")
        yield self.scroller
        yield self.search_box
        yield self.status

    def on_mount(self) -> None:
        self.scroller.focus()
        # Items are estimated until drawn: what will be on screen is measured exactly first,
        # and the view scrolls there once the scroller's layout has those heights.
        self._scroll_pending = False
        self.watch(self.scroller, "virtual_size", self._scroll_to_start, init=False)
        self.call_after_refresh(self._measure_start)

    def _measure_start(self) -> None:
        height = self.scroller.size.height
        if self.start is None:
            self.document.measure_end(height)
        else:
            self.document.item_line(self.start, height)
        self.document.refresh(layout=True)
        self.scroller.refresh(layout=True)
        self._scroll_pending = True
        self._scroll_to_start()

    def _scroll_to_start(self) -> None:
        document, scroller = self.document, self.scroller
        if not self._scroll_pending or scroller.virtual_size.height < document.total_lines:
            return
        self._scroll_pending = False
        if self.start is None:
            scroller.scroll_end(animate=False, immediate=True)
        else:
            line = document.item_line(self.start, scroller.size.height)
            scroller.scroll_to(y=line, animate=False, immediate=True)

    # -- search -------------------------------------------------------------------------------
    def action_search(self) -> None:
        self.search_box.add_class("-active")
        self.set_focus(self.search_box)  # at once: the next keys typed are the term

    def on_key(self, event: events.Key) -> None:
        """Keys typed fast after / can reach the screen from the old focus: they go to the search
        box all the same, so `/term` and Enter typed in one go finds the term. (A printable key
        typed in the box never gets here: the box takes it.)"""
        box = self.search_box
        active = box.has_class("-active")
        if not active:
            if event.key in ("slash", "ctrl+f"):
                event.stop()
                self.action_search()
            return
        if event.key == "enter" and self.focused is not box:
            event.stop()
            self._find_term(box.value)
        elif event.is_printable and event.character:
            event.stop()
            box.insert_text_at_cursor(event.character)

    @on(Input.Submitted, "#full-search")
    def _find(self, event: Input.Submitted) -> None:
        self._find_term(event.value)

    def _find_term(self, term: str) -> None:
        self._close_search()
        if not term:
            self.document.search("")
            self.status.update("")
            return
        self.run_worker(self._search(term), group="full-search", exclusive=True)

    async def _search(self, term: str) -> None:
        """The search in steps, a frame let out between them: a long session stays responsive
        (n/N already move through the matches found so far)."""
        document = self.document
        document.searching = True
        try:
            total = len(document.items)
            for looked_at in document.search_steps(term):
                self.status.update(f"Searching {term!r}… {looked_at} of {total} blocks")
                await asyncio.sleep(0)
        finally:
            document.searching = False
        if not document.matches:
            self.status.update(f"No match for {term!r}")
            return
        if document.current is None:
            self.action_step(True)
        else:
            self._show_current()

    def action_step(self, forward: bool) -> None:
        if not self.document.term:
            self.status.update("Nothing searched yet: press / to search")
            return
        match = self.document.step(forward, int(self.scroller.scroll_y))
        if match is None:
            searching = "none found yet" if self.document.searching else "no match"
            self.status.update(f"{self.document.term!r}: {searching}")
            return
        # The match a third of the way down, with what leads to it above.
        above = max(0, self.scroller.size.height // 3)
        line = self.document.match_line(match)
        self.scroller.scroll_to(y=max(0, line - above), animate=False)
        self._show_current()

    def _show_current(self) -> None:
        assert self.document.current is not None
        total = len(self.document.matches)
        self.status.update(
            f"Match {self.document.current + 1} of {total} for {self.document.term!r}"
            " · n next · N previous"
        )

    def _close_search(self) -> None:
        self.search_box.remove_class("-active")
        self.scroller.focus()

    # -- moving and leaving -------------------------------------------------------------------
    def action_top(self) -> None:
        self.scroller.scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.scroller.scroll_end(animate=False)

    def action_back(self) -> None:
        if self.search_box.has_class("-active"):
            self._close_search()
            return
        self.dismiss(None)


def open_full_view(app: App[object], conversation: Conversation, at: Widget | None = None) -> None:
    """Cover the main screen with the full view of `conversation`, opened at the block `at`."""
    sources = list(conversation.full_sources)
    live = conversation.live_blocks
    sources.extend(full_source(block) for block in live)
    start = None
    if at is not None and at in live:
        start = len(conversation.full_sources) + live.index(at)
    app.push_screen(FullViewScreen(sources, start))
