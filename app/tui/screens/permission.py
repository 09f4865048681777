"""The permission dialog: one PermissionPrompt, answered by key or click, resolved through its
ResolveOnce (claim first), so whoever else resolves it (Ctrl+C, a hook) closes it cleanly."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static

from app.execution.interfaces import PermissionPrompt
from app.tui import answers
from app.tui.translate import permission_preview
from tools.decisions import PermissionDecision
from widgets.diff_view import DiffView


class PermissionScreen(ModalScreen[PermissionDecision | None]):
    CSS_PATH = "permission.tcss"
    BINDINGS = [
        Binding("1,y", "allow_once", "Allow once", id="permission.allow_once"),
        Binding("2,a", "allow_always", "Always allow", id="permission.allow_always"),
        Binding("3,n", "deny", "Deny", id="permission.deny"),
        Binding("escape", "deny", "Deny", id="permission.escape"),
        Binding("tab", "feedback", "Feedback", id="permission.feedback"),
    ]

    def __init__(
        self, prompt: PermissionPrompt, *, key_guard_s: float, clock: Callable[[], float]
    ) -> None:
        super().__init__()
        self.prompt = prompt
        self.key_guard_s = key_guard_s
        self.clock = clock
        self.shown_at = clock()

    def compose(self) -> ComposeResult:
        p = self.prompt
        kind, preview = permission_preview(p.tool_name, p.input)
        with Vertical(id="dialog"):
            title = Text("Permission needed: ", style="bold")
            title.append(p.tool_name, style="bold")
            if p.summary:
                title.append(f"  {p.summary}")
            yield Static(title, id="title")
            with VerticalScroll(id="preview"):
                if kind == "diff":
                    yield DiffView(preview)
                else:
                    yield Static(Text(preview), id="input", classes=f"-{kind}")
            reason = p.reason.describe() if p.reason else p.message
            if reason:
                yield Static(Text(f"Why: {reason}", style="italic"), id="reason")
            if _destructive(p):
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
        text.append("1/y", style="bold")
        text.append(" allow once\n")
        if self.prompt.suggestions:
            text.append("2/a", style="bold")
            text.append(" always allow: ")
            text.append(", ".join(self.prompt.suggestions), style="bold")
            text.append("\n")
        text.append("3/n", style="bold")
        text.append(" deny   ")
        text.append("Esc", style="bold")
        text.append(" deny   ")
        text.append("Tab", style="bold")
        text.append(" deny with feedback for the model")
        return text

    def on_mount(self) -> None:
        for button in self.query(Button):
            # Buttons take clicks only: Enter on a focused button would be a keystroke answer
            # that dodges the key guard.
            button.can_focus = False
        self.set_focus(None)
        self.set_interval(0.1, self._check_claimed)

    def _check_claimed(self) -> None:
        if self.prompt.resolver.is_claimed() and self.is_current:
            self.dismiss(None)

    def _guarded(self) -> bool:
        return self.clock() - self.shown_at < self.key_guard_s

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "allow_always" and not self.prompt.suggestions)

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

    def action_allow_always(self) -> None:
        if not self._guarded() and self.prompt.suggestions:
            self.answer(answers.allow_always(self.prompt.suggestions))

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


def _destructive(prompt: PermissionPrompt) -> bool:
    """The tool's own declaration for this input (an input that does not parse shows no warning:
    the call will be refused at its schema stage anyway)."""
    try:
        return bool(prompt.tool.is_destructive(prompt.tool.parse_input(prompt.input)))
    except Exception:
        return False
