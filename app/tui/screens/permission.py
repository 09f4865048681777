"""The permission dialog: one PermissionQuestion, answered by key or click, resolved through its
ResolveOnce (claim first), so whoever else resolves it (Ctrl+C, a hook) closes it cleanly.

It answers only to deliberate input, since it opens while the user may be typing a prompt:
`1` allows once and `3`/Esc deny at once, Tab opens the feedback field, and letters never answer.
"Always allow" saves a rule for good, so no single key does it: `2` (or the arrows) only selects
it, and Enter confirms a choice that has been selected for at least the key guard. "Fix #2" and
Enter typed as prose thus never saves a rule, and any other key typed clears the selection.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Input, Static

from app.engine.api import PermissionQuestion, answers
from app.tui.screens.guarded import GuardedQuestionScreen
from tools.decisions import PermissionDecision
from widgets.diff_view import DiffView


class PermissionScreen(GuardedQuestionScreen):
    CSS_PATH = "permission.tcss"
    BINDINGS = [
        Binding("1", "allow_once", "Allow once", id="permission.allow_once"),
        Binding("2", "select_always", "Always (then Enter)", id="permission.allow_always"),
        Binding("3", "deny", "Deny", id="permission.deny"),
        Binding("escape", "deny", "Deny", id="permission.escape"),
        Binding("tab", "feedback", "Feedback", id="permission.feedback"),
        Binding("up,left", "move(-1)", "Select", show=False, id="permission.previous"),
        Binding("down,right", "move(1)", "Select", show=False, id="permission.next"),
        Binding("enter", "confirm", "Confirm", id="permission.confirm"),
    ]
    # The keys above; any other key typed at the dialog clears the selection.
    _DIALOG_KEYS = frozenset(
        {"1", "2", "3", "escape", "tab", "up", "down", "left", "right", "enter"}
    )

    def __init__(
        self, prompt: PermissionQuestion, *, key_guard_s: float, clock: Callable[[], float]
    ) -> None:
        super().__init__(prompt, key_guard_s=key_guard_s, clock=clock)
        # The selected choice (a button id) and when it was selected; None: nothing selected.
        self.selected: str | None = None
        self.selected_at = 0.0

    def compose(self) -> ComposeResult:
        p = self.prompt
        preview = p.preview
        kind = "input" if preview is None or preview.kind == "text" else preview.kind
        text = preview.text if preview is not None else ""
        with Vertical(id="dialog"):
            title = Text("Permission needed: ", style="bold")
            title.append(p.tool_name, style="bold")
            if p.title:
                title.append(f"  {p.title}")
            yield Static(title, id="title")
            with VerticalScroll(id="preview"):
                if kind == "diff":
                    yield DiffView(text)
                else:
                    yield Static(Text(text), id="input", classes=f"-{kind}")
            reason = p.reason_text
            if reason:
                yield Static(Text(f"Why: {reason}", style="italic"), id="reason")
            if p.destructive:
                yield Static(
                    Text(
                        "⚠ This destroys data (deletes, overwrites or rewrites history).",
                        style="bold",
                    ),
                    id="destructive",
                )
            yield Static(self._choices(), id="choices")
            with Horizontal(id="buttons"):
                yield Button("1 Allow once", id="allow-once", variant="success", compact=True)
                if p.suggestions:
                    yield Button(
                        "2 Always allow", id="allow-always", variant="primary", compact=True
                    )
                yield Button("3 Deny", id="deny", variant="error", compact=True)
            yield Input(
                placeholder="Tell the model what to do instead (Enter sends)", id="feedback"
            )
        # The dialog's own footer: the main screen's keys do not answer it.
        yield Footer()

    def _choices(self) -> Text:
        text = Text()
        text.append("1", style="bold")
        text.append(" allow once\n")
        if self.prompt.suggestions:
            text.append("2", style="bold")
            text.append(" then ")
            text.append("Enter", style="bold")
            text.append(" always allow: ")
            text.append(", ".join(self.prompt.suggestions), style="bold")
            text.append("\n")
        text.append("3", style="bold")
        text.append("/")
        text.append("Esc", style="bold")
        text.append(" deny   ")
        text.append("Tab", style="bold")
        text.append(" deny with feedback for the model   ")
        text.append("↑↓", style="bold")
        text.append(" select, ")
        text.append("Enter", style="bold")
        text.append(" confirm")
        return text

    def on_mount(self) -> None:
        self.start_guard()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "select_always" and not self.prompt.suggestions)

    def _choice_ids(self) -> list[str]:
        return [b.id for b in self.query(Button) if b.id]

    def _select(self, choice: str | None) -> None:
        self.selected = choice
        self.selected_at = self.clock()
        for button in self.query(Button):
            button.set_class(button.id == choice, "-selected")

    def on_key(self, event: events.Key) -> None:
        # Typing meant for the prompt (letters, spaces, other digits) clears a selection, so a
        # `2` inside a sentence never stays armed for the Enter that ends it.
        typed = event.key not in self._DIALOG_KEYS and self.selected is not None
        if typed and not self.query_one("#feedback", Input).has_focus:
            self._select(None)

    def answer(self, decision: PermissionDecision) -> bool:
        resolver = self.prompt.resolver
        if not resolver.claim():
            self.dismiss(None)
            return False
        resolver.set_claimed(decision)
        self.dismiss(decision)
        return True

    def action_allow_once(self) -> None:
        if not self._guarded():
            self.answer(answers.allow_once())

    def action_select_always(self) -> None:
        if not self._guarded() and self.prompt.suggestions:
            self._select("allow-always")

    def action_move(self, step: int) -> None:
        if self._guarded() or self.query_one("#feedback", Input).has_focus:
            return
        ids = self._choice_ids()
        if self.selected in ids:
            index = (ids.index(self.selected) + step) % len(ids)
        else:
            index = 0 if step > 0 else len(ids) - 1
        self._select(ids[index])

    def action_confirm(self) -> None:
        choice = self.selected
        if self._guarded() or choice is None:
            return
        if self.clock() - self.selected_at < self.key_guard_s:
            # Selected and confirmed faster than anyone reads the dialog: typing, not a choice.
            self._select(None)
            return
        if choice == "allow-once":
            self.answer(answers.allow_once())
        elif choice == "allow-always" and self.prompt.suggestions:
            self.answer(answers.allow_always(self.prompt.suggestions))
        elif choice == "deny":
            self.answer(answers.deny(self._feedback_text()))

    def action_deny(self) -> None:
        if not self._guarded():
            self.answer(answers.deny(self._feedback_text()))

    def action_feedback(self) -> None:
        if self._guarded():
            return
        field = self.query_one("#feedback", Input)
        field.add_class("-active")
        field.focus()

    def _feedback_text(self) -> str:
        field = self.query_one("#feedback", Input)
        return field.value if field.has_class("-active") else ""

    @on(Input.Submitted, "#feedback")
    def _feedback_sent(self) -> None:
        self.answer(answers.deny(self._feedback_text()))

    @on(Button.Pressed, "#allow-once")
    def _clicked_once(self) -> None:
        self.answer(answers.allow_once())

    @on(Button.Pressed, "#allow-always")
    def _clicked_always(self) -> None:
        self.answer(answers.allow_always(self.prompt.suggestions))

    @on(Button.Pressed, "#deny")
    def _clicked_deny(self) -> None:
        self.answer(answers.deny(self._feedback_text()))
