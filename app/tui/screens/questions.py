"""The questions dialog (a tool's QuestionsRequest, e.g. AskUserQuestion): one question at a time,
its options by number, arrows and Enter, or click, multi-select with Space, and "Other" for an
answer of the user's own words.

The answers go back as an allow whose `updated_input` is the tool's input plus `answers` (question
text -> chosen labels joined with ", ", or the typed text); Esc declines to answer (a denial with
Claude Code's rejection text). Like the permission dialog it ignores keys for the key guard after
opening, since it may open while the user is typing.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Button, Footer, Input, Static

from app.engine.api import PermissionQuestion, answers
from app.tui.screens.dialog_fit import fit
from app.tui.screens.guarded import GuardedQuestionScreen
from app.tui.screens.typed_ahead import TypedAhead, take_typed_key
from tools.decisions import DecisionReason, PermissionDecision
from tools.interaction import Question, QuestionsRequest

OTHER = "Other"
MULTI_JOIN = ", "


class QuestionsScreen(GuardedQuestionScreen):
    # Nothing focused on opening: the text field takes keys only once the user opens it.
    AUTO_FOCUS = None
    CSS_PATH = "questions.tcss"
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False, id="questions.up"),
        Binding("down", "move(1)", "Down", show=False, id="questions.down"),
        Binding("space", "tick", "Tick", id="questions.toggle"),
        Binding("enter", "confirm", "Choose", id="questions.confirm"),
        Binding("escape", "cancel", "Don't answer", id="questions.cancel"),
        *(
            Binding(str(n), f"pick({n - 1})", str(n), show=False, id=f"questions.pick{n}")
            for n in range(1, 6)
        ),
    ]

    def __init__(
        self,
        prompt: PermissionQuestion,
        request: QuestionsRequest,
        *,
        key_guard_s: float,
        clock: Callable[[], float],
    ) -> None:
        super().__init__(prompt, key_guard_s=key_guard_s, clock=clock)
        self.request = request
        self.index = 0  # the question on screen
        self.cursor = 0  # the highlighted row: an option, or len(options) for "Other"
        self.chosen: set[str] = set()  # multi-select: the labels ticked on this question
        self.answers: dict[str, str] = {}

    @property
    def question(self) -> Question:
        return self.request.questions[self.index]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(id="chips")
            yield Static(id="question")
            # Long options scroll (the rows the rest leaves, dialog_fit); the hint stays below.
            with VerticalScroll(id="options"):
                for n in range(5):
                    yield Button("", id=f"option-{n}", compact=True)
            yield Input(placeholder="Type your answer (Enter sends, Esc goes back)", id="other")
            yield Static(id="hint")
            yield TypedAhead(id="typed")
        yield Footer()

    def on_mount(self) -> None:
        # Focusable only while open: Textual would otherwise focus it, hidden, and take the keys.
        self.query_one("#other", Input).can_focus = False
        self.query_one("#options", VerticalScroll).can_focus = False
        self.start_guard()
        self._show()
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        # The options get the rows the chips, question and hint leave (tui-r4 F9: at 60x20 four
        # described options pushed option 4, "Other" and the hint off the screen).
        fit(self, "#options", most=60)

    def _cursor_into_view(self) -> None:
        """The highlighted row is always on screen: ↑↓ reach every option and "Other"."""
        if not self.is_attached or not self.query("#options"):
            return
        buttons = list(self.query("#options Button").results(Button))
        if self.cursor < len(buttons):
            self.query_one("#options", VerticalScroll).scroll_to_widget(
                buttons[self.cursor], animate=False
            )

    def on_key(self, event: events.Key) -> None:
        # Not the dialog's keys (a digit of a row it shows, Space when it ticks, the arrows,
        # Enter, Esc): the prompt's text. A digit with no row ("5" beside 4 rows) is kept too.
        key = event.key
        dialog_key = (key == "space" and self.question.multi_select) or (
            key.isdigit() and 0 < int(key) <= self._rows()
        )
        if take_typed_key(
            self, self.guard, event, dialog_key=dialog_key, typing=self._other_open()
        ):
            self._fit()

    def _rows(self) -> int:
        """The rows on screen for this question: its options and "Other"."""
        return len(self.question.options) + 1

    def _other_open(self) -> bool:
        return self.query_one("#other", Input).has_class("-active")

    # -- drawing ------------------------------------------------------------------------------

    def _show(self) -> None:
        q = self.question
        chips = Text()
        for n, each in enumerate(self.request.questions):
            done = each.question in self.answers
            style = "bold reverse" if n == self.index else ("lathe.ok" if done else "dim")
            chips.append(f" {'✓ ' if done else ''}{each.header} ", style=style)
            chips.append(" ")
        self.query_one("#chips", Static).update(chips)
        title = Text(q.question, style="bold")
        if q.multi_select:
            title.append("  (choose any)", style="italic")
        self.query_one("#question", Static).update(title)
        rows = [*q.options, None]
        for n, button in enumerate(self.query(Button)):
            if n >= len(rows):
                button.display = False
                continue
            button.display = True
            option = rows[n]
            tick = ""
            if q.multi_select:
                label = option.label if option is not None else OTHER
                tick = "[x] " if label in self.chosen else "[ ] "
            if option is None:
                button.label = Text(f"{n + 1}. {tick}{OTHER}: type your own answer")
            else:
                button.label = Text(f"{n + 1}. {tick}{option.label}  ").append(
                    option.description, style="dim"
                )
            button.set_class(n == self.cursor, "-cursor")
        # A new label repaints a button but keeps its height: measure every row again, or the
        # next question keeps this one's row heights (blank rows, a description cut short).
        for button in self.query(Button):
            button.refresh(layout=True)
        digits = f"1-{self._rows()}"
        # Enter moves on to the next question, or sends the answers after the last one.
        then = "next" if self.index + 1 < len(self.request.questions) else "send"
        hint = (
            f"{digits} or ↑↓ move  Space tick  Enter {then}  Esc don't answer"
            if q.multi_select
            else f"{digits} or ↑↓ Enter choose  Esc don't answer"
        )
        self.query_one("#hint", Static).update(Text(hint, style="dim"))
        self.call_after_refresh(self._cursor_into_view)

    # -- answering ----------------------------------------------------------------------------

    def _record(self, answer: str) -> None:
        if answer:
            self.answers[self.question.question] = answer
        if self.index + 1 < len(self.request.questions):
            self.index += 1
            self.cursor = 0
            self.chosen = set()
            self._close_other()
            self._show()
            return
        self._finish()

    def _finish(self) -> None:
        resolver = self.prompt.resolver
        if not resolver.claim():
            self.dismiss(None)
            return
        decision = PermissionDecision.allow(
            DecisionReason("user", "answered by the user"),
            {**self.prompt.input, "answers": dict(self.answers)},
        )
        resolver.set_claimed(decision)
        self.dismiss(decision)

    def _multi_answer(self, typed: str = "") -> str:
        labels = [o.label for o in self.question.options if o.label in self.chosen]
        if typed:
            labels.append(typed)
        return MULTI_JOIN.join(labels)

    def _open_other(self) -> None:
        field = self.query_one("#other", Input)
        field.add_class("-active")
        field.can_focus = True
        field.focus()
        self._fit()  # the field takes rows: the options give them up, the hint stays

    def _close_other(self) -> None:
        field = self.query_one("#other", Input)
        field.value = ""
        field.remove_class("-active")
        field.can_focus = False
        self.set_focus(None)
        self._fit()

    def _activate(self, row: int) -> None:
        """A row chosen (key or click): single-select answers; multi-select ticks."""
        q = self.question
        self.cursor = row
        if row >= len(q.options):
            self._open_other()
            self._show()
            return
        label = q.options[row].label
        if q.multi_select:
            self.chosen ^= {label}
            self._show()
        else:
            self._record(label)

    def action_move(self, step: int) -> None:
        if self._guarded() or self._other_open():
            return
        rows = len(self.question.options) + 1
        self.cursor = (self.cursor + step) % rows
        self._show()

    def action_pick(self, row: int) -> None:
        if self._guarded() or self._other_open() or row > len(self.question.options):
            return
        self._activate(row)

    def action_tick(self) -> None:
        if self._guarded() or self._other_open():
            return
        if self.question.multi_select:
            self._activate(self.cursor)

    def action_confirm(self) -> None:
        if self._guarded() or self._other_open():
            return
        q = self.question
        if q.multi_select and self.cursor < len(q.options):
            self._record(self._multi_answer())
        else:
            self._activate(self.cursor)

    def action_cancel(self) -> None:
        if self._other_open():
            self._close_other()
            self._show()
            return
        if self._guarded():
            return
        resolver = self.prompt.resolver
        if not resolver.claim():
            self.dismiss(None)
            return
        decision = answers.deny()
        resolver.set_claimed(decision)
        self.dismiss(decision)

    @on(Input.Submitted, "#other")
    def _other_sent(self, event: Input.Submitted) -> None:
        typed = event.value.strip()
        if not typed:
            return
        answer = self._multi_answer(typed) if self.question.multi_select else typed
        self._record(answer)

    @on(Button.Pressed)
    def _clicked(self, event: Button.Pressed) -> None:
        button_id = event.button.id or ""
        if button_id.startswith("option-"):
            self._activate(int(button_id.removeprefix("option-")))
