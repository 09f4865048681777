"""The plan dialog (a tool's PlanApprovalRequest, i.e. ExitPlanMode): the model's plan, then go on
with edits auto-accepted, go on asking for each edit, or keep planning with a word for the model.

Approval is an allow with `set_mode` (the engine's prompter switches the permission mode
before the tool runs; the queue updates the status bar); keeping on planning is a denial, with the
user's words as feedback when they typed any. Keys are ignored for the key guard after opening.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Button, Footer, Input, Markdown, Static

from app.engine.api import PermissionQuestion, answers
from app.tui.screens.dialog_fit import fit
from app.tui.screens.guarded import GuardedQuestionScreen
from app.tui.screens.scroll_part import Where, below_words, scroll_part
from app.tui.screens.typed_ahead import TypedAhead, take_typed_key
from tools.decisions import PermissionDecision
from tools.interaction import PlanApprovalRequest

MODE_CHOICES = {
    "acceptEdits": "Yes, and auto-accept edits",
    "default": "Yes, and manually approve edits",
}
KEEP_PLANNING = "No, keep planning"


class PlanApprovalScreen(GuardedQuestionScreen):
    # Nothing focused on opening: the text field takes keys only once the user opens it.
    AUTO_FOCUS = None
    CSS_PATH = "plan_approval.tcss"
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False, id="plan.up"),
        Binding("down", "move(1)", "Down", show=False, id="plan.down"),
        Binding("enter", "confirm", "Choose", id="plan.confirm"),
        Binding("escape", "keep_planning", "Keep planning", id="plan.keep"),
        Binding("1", "pick(0)", "1", show=False, id="plan.pick1"),
        Binding("2", "pick(1)", "2", show=False, id="plan.pick2"),
        Binding("3", "pick(2)", "3", show=False, id="plan.pick3"),
        # The plan scrolls by key: it is read before it is approved (tui-r4 F3).
        Binding("pagedown", "scroll_plan('page_down')", "Scroll", show=False, id="plan.pgdn"),
        Binding("pageup", "scroll_plan('page_up')", "Scroll", show=False, id="plan.pgup"),
        Binding("home,ctrl+home", "scroll_plan('home')", "Top", show=False, id="plan.home"),
        Binding("end,ctrl+end", "scroll_plan('end')", "End", show=False, id="plan.end"),
    ]

    def __init__(
        self,
        prompt: PermissionQuestion,
        request: PlanApprovalRequest,
        *,
        key_guard_s: float,
        clock: Callable[[], float],
    ) -> None:
        super().__init__(prompt, key_guard_s=key_guard_s, clock=clock)
        self.request = request
        self.cursor = 0
        # The rows: one per mode the plan may go on in, then "keep planning".
        self.rows: list[str] = [*request.modes, ""]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Ready to code? Here is the plan:", style="bold"), id="title")
            with VerticalScroll(id="plan"):
                yield Markdown(self.request.plan or "(no plan given)")
            yield Static(id="more")
            with Vertical(id="choices"):
                for n, mode in enumerate(self.rows):
                    label = MODE_CHOICES.get(mode, mode) if mode else KEEP_PLANNING
                    yield Button(f"{n + 1}. {label}", id=f"choice-{n}", compact=True)
            yield Input(
                placeholder="Tell the model what to change (Enter sends, empty: just keep planning)",
                id="feedback",
            )
            yield Static(Text("1-3 or ↑↓ Enter choose  Esc keep planning", style="dim"), id="hint")
            yield TypedAhead(id="typed")
        yield Footer()

    def on_mount(self) -> None:
        # Neither takes keys until wanted: the arrows choose, the wheel still scrolls the plan.
        self.query_one("#feedback", Input).can_focus = False
        self.query_one("#plan", VerticalScroll).can_focus = False
        self.start_guard()
        self._show()
        self.query_one("#more", Static).display = False
        # Recounted on every scroll: by key, by the wheel, by the scrollbar.
        self.watch(self.query_one("#plan"), "scroll_y", self._scrolled, init=False)
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        fit(self, "#plan", then=self._count)

    def _scrolled(self, _old: float, _new: float) -> None:
        self.call_after_refresh(self._count)

    def _count(self) -> None:
        """The line under the plan: how much of it is below (none when it all shows)."""
        if not self.is_attached or not self.query("#more"):
            return
        more = self.query_one("#more", Static)
        words = below_words(self.query_one("#plan", VerticalScroll), "plan")
        more.update(words or "")
        self.query_one("#plan").set_class(words is not None, "-more")
        if more.display != (words is not None):
            more.display = words is not None
            self._fit()  # the line takes a row from the plan, never from the choices

    def action_scroll_plan(self, where: Where) -> None:
        if not self._feedback_open():
            scroll_part(self.query_one("#plan", VerticalScroll), where)
            self.call_after_refresh(self._count)

    def on_key(self, event: events.Key) -> None:
        # Not the dialog's keys (its digits, the arrows, Enter, Esc): the prompt's text.
        dialog_key = event.key.isdigit() and 0 < int(event.key) <= len(self.rows)
        typing = self._feedback_open()
        if take_typed_key(self, self.guard, event, dialog_key=dialog_key, typing=typing):
            self._fit()

    def _feedback_open(self) -> bool:
        return self.query_one("#feedback", Input).has_class("-active")

    def _show(self) -> None:
        for n, button in enumerate(self.query(Button)):
            button.set_class(n == self.cursor, "-cursor")

    def _answer(self, decision: PermissionDecision) -> None:
        resolver = self.prompt.resolver
        if not resolver.claim():
            self.dismiss(None)
            return
        resolver.set_claimed(decision)
        self.dismiss(decision)

    def _activate(self, row: int) -> None:
        self.cursor = row
        self._show()
        mode = self.rows[row]
        if mode:
            self._answer(answers.approve_plan(mode))
            return
        field = self.query_one("#feedback", Input)
        field.add_class("-active")
        field.can_focus = True
        field.focus()
        self._fit()  # the field takes rows from the plan, not from the choices

    def action_move(self, step: int) -> None:
        if not self._guarded() and not self._feedback_open():
            self.cursor = (self.cursor + step) % len(self.rows)
            self._show()

    def action_pick(self, row: int) -> None:
        if not self._guarded() and not self._feedback_open() and row < len(self.rows):
            self._activate(row)

    def action_confirm(self) -> None:
        if not self._guarded() and not self._feedback_open():
            self._activate(self.cursor)

    def action_keep_planning(self) -> None:
        if self._feedback_open():
            field = self.query_one("#feedback", Input)
            field.remove_class("-active")
            field.value = ""
            field.can_focus = False
            self.set_focus(None)
            return
        if not self._guarded():
            # tui-r5 F10: a plan rejected without a word ends the turn, as a deny does and as
            # Claude Code does ("Rejected Claude's plan"): the model waits for the user's prompt.
            self._answer(answers.deny(end_turn=True))

    @on(Input.Submitted, "#feedback")
    def _feedback_sent(self, event: Input.Submitted) -> None:
        # Words for the model go to it at once; an empty field is a plain rejection (ends the turn).
        self._answer(answers.deny(event.value, end_turn=True))

    @on(Button.Pressed)
    def _clicked(self, event: Button.Pressed) -> None:
        button_id = event.button.id or ""
        if button_id.startswith("choice-"):
            self._activate(int(button_id.removeprefix("choice-")))
