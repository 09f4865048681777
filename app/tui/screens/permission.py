"""The permission dialog: one PermissionQuestion, answered by key or click, resolved through its
ResolveOnce (claim first), so whoever else resolves it (Ctrl+C, a hook) closes it cleanly.

The choices are the question's own (the engine fits them to the call and proved each one would
approve it): allow once, always allow (a verified rule) and deny; for edits also this file for the
session and accept all edits (acceptEdits). `3` denies in every dialog.

It answers only to deliberate input, since it opens while the user may be typing a prompt:
`1` (and `2` for an edit's session rule) allows at once and `3`/Esc deny at once, Tab opens the
feedback field, and letters never answer. A grant that outlives the call (a saved rule, acceptEdits)
has no single key: its key (or the arrows) only selects it, and Enter confirms a choice that has
been selected for at least the key guard. "Fix #2" and Enter typed as prose thus never saves a
rule, and any other key typed clears the selection.

Nothing typed is lost: a printable key that is not one of this dialog's keys (and every printable
key during the key guard) goes to the prompt's text, kept for after the dialog; the dialog shows
what it kept (app/tui/screens/typed_ahead.py).

A deny without feedback ends the turn (the batch's other calls are not run, the model waits for
the user); a deny with feedback sends it to the model and the turn goes on.

However long the preview (a long diff, a Write's content), the choices stay on screen: the preview
takes what room is left, scrolls, and says how many lines are below (recounted on every scroll).
With the feedback field open, the choices give way to it, so it shows at 60x20 too.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Button, Footer, Input, Static
from textual.widgets.button import ButtonVariant

from app.engine.api import PermissionChoice, PermissionQuestion, answers
from app.tui.screens.guarded import GuardedQuestionScreen
from app.tui.screens.typed_ahead import TypedAhead, take_typed_key
from tools.decisions import PermissionDecision
from widgets.counts import more_lines
from widgets.diff_view import DiffView

# Screens shorter than this get the compact dialog.
COMPACT_BELOW = 30
VARIANTS: dict[str, ButtonVariant] = {"allow_once": "success", "deny": "error"}
FEEDBACK_PLACEHOLDER = "What should the model do instead? Enter sends, Esc denies"


class PermissionScreen(GuardedQuestionScreen):
    CSS_PATH = "permission.tcss"
    BINDINGS = [
        Binding("1", "allow_once", "Allow once", id="permission.allow_once"),
        Binding("2", "select_always", "Always (then Enter)", id="permission.allow_always"),
        Binding("2", "key('2')", "This file, this session", id="permission.allow_session"),
        Binding("3", "deny", "Deny", id="permission.deny"),
        Binding("4", "key('4')", "All edits (then Enter)", id="permission.accept_edits"),
        Binding("5", "key('5')", "Always (then Enter)", id="permission.allow_project"),
        Binding("escape", "deny", "Deny", id="permission.escape"),
        Binding("tab", "feedback", "Feedback", id="permission.feedback"),
        Binding("up,left", "move(-1)", "Select", show=False, id="permission.previous"),
        Binding("down,right", "move(1)", "Select", show=False, id="permission.next"),
        Binding("pageup", "scroll_preview(-1)", "Scroll", show=False, id="permission.page_up"),
        Binding("pagedown", "scroll_preview(1)", "Scroll", show=False, id="permission.page_down"),
        Binding("enter", "confirm", "Confirm", id="permission.confirm"),
    ]
    # The keys above; any other key typed at the dialog clears the selection.
    _DIALOG_KEYS = frozenset(
        {"1", "2", "3", "4", "5", "escape", "tab", "up", "down", "left", "right", "enter"}
        | {"pageup", "pagedown"}
    )

    def __init__(
        self, prompt: PermissionQuestion, *, key_guard_s: float, clock: Callable[[], float]
    ) -> None:
        super().__init__(prompt, key_guard_s=key_guard_s, clock=clock)
        # The selected choice (a button id) and when it was selected; None: nothing selected.
        self.selected: str | None = None
        self.selected_at = 0.0
        self.choices = prompt.choices

    def compose(self) -> ComposeResult:
        p = self.prompt
        preview = p.preview
        kind = "input" if preview is None or preview.kind == "text" else preview.kind
        text = preview.text if preview is not None else ""
        with Vertical(id="dialog"):
            title = Text("Permission needed: ", style="bold", no_wrap=True, overflow="ellipsis")
            title.append(p.tool_name, style="bold")
            if p.title:
                title.append(f"  {p.title}")
            yield Static(title, id="title")
            with VerticalScroll(id="preview"):
                if kind == "diff":
                    yield DiffView(text)
                else:
                    yield Static(Text(text), id="input", classes=f"-{kind}")
            more = Static("", id="more")
            more.display = False  # until the preview is measured and found too long
            yield more
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
                for choice in self.choices:
                    yield Button(
                        f"{choice.key} {_short(choice)}",
                        id=_button_id(choice),
                        variant=VARIANTS.get(choice.id, "primary"),
                        compact=True,
                    )
            yield Input(placeholder=FEEDBACK_PLACEHOLDER, id="feedback")
            hint = Static(
                Text.assemble(
                    ("Enter", "bold"),
                    " sends it · ",
                    ("Esc", "bold"),
                    " denies without it",
                ),
                id="feedback-hint",
            )
            hint.display = False
            yield hint
            yield TypedAhead(id="typed")
        # The dialog's own footer: the main screen's keys do not answer it.
        yield Footer()

    def _choices(self) -> Text:
        """Every choice with its key; the selected one (arrows, or a key of a grant that needs
        Enter) is marked, so the list works where the buttons do not fit."""
        text = Text()
        for choice in self.choices:
            if choice.id == "deny":
                continue
            selected = self.selected == _button_id(choice)
            text.append("› " if selected else "  ", style="bold")
            start = len(text)
            text.append(choice.key, style="bold")
            if choice.confirm:
                text.append(" then ")
                text.append("Enter", style="bold")
            words, rules = choice.label, ", ".join(choice.rules)
            shows_rules = bool(rules) and words.endswith(rules)
            if shows_rules:  # the rules as they will be saved, in bold
                words = words[: -len(rules)]
            text.append(f" {words[0].lower()}{words[1:]}")
            if shows_rules:
                text.append(rules, style="bold")
            if selected:
                text.stylize("reverse", start, len(text))
            text.append("\n")
        text.append("› " if self.selected == "deny" else "  ", style="bold")
        text.append("3", style="bold")
        text.append("/")
        text.append("Esc", style="bold")
        text.append(" deny   ")
        text.append("Tab", style="bold")
        text.append(" deny with feedback   ")
        text.append("↑↓", style="bold")
        text.append(" select   ")
        text.append("Enter", style="bold")
        text.append(" confirm")
        return text

    def on_mount(self) -> None:
        self.start_guard()
        self._compact()
        # Recount the lines below on every scroll: PgDn on the focused preview scrolls it
        # without this screen's action, and so does the mouse.
        preview = self.query_one("#preview", VerticalScroll)
        self.watch(preview, "scroll_y", self._scrolled, init=False)

    def _scrolled(self, _old: float, _new: float) -> None:
        self.call_after_refresh(self._count_hidden)

    def on_resize(self) -> None:
        self._compact()

    def _compact(self) -> None:
        """Below COMPACT_BELOW rows the dialog drops its blank rows (permission.tcss)."""
        if self.query("#dialog"):
            self.query_one("#dialog").set_class(self.size.height < COMPACT_BELOW, "-compact")
        self.call_after_refresh(self._fit_preview)

    def _fit_preview(self) -> None:
        """The preview gets the rows the rest of the dialog leaves (at least 3), so the choices
        never fall below the screen; what does not fit scrolls and is counted under it."""
        try:
            self._fit()
        except NoMatches:
            pass  # answered and dismissed before this ran

    def _fit(self) -> None:
        dialog = self.query_one("#dialog", Vertical)
        preview = self.query_one("#preview", VerticalScroll)
        # Buttons are for the mouse; where they do not fit in one row the list above (every
        # choice with its key) is the dialog, and no button is cut in half.
        buttons = self.query_one("#buttons", Horizontal)
        needed = sum(len(str(b.label)) + 4 for b in self.query(Button))
        typing = self.query_one("#feedback", Input).has_class("-active")
        # While feedback is typed the choices give way to the field (Enter sends, Esc denies, as
        # its placeholder and the footer say): the field must show on the smallest screen.
        self.query_one("#choices", Static).display = not typing
        self.query_one("#feedback-hint", Static).display = typing
        buttons.display = not typing and needed <= dialog.content_region.width
        others = sum(
            child.outer_size.height
            for child in dialog.children
            if child is not preview and child.display
        )
        hint = self.query_one("#feedback-hint", Static)
        if typing and hint.outer_size.height == 0:
            others += 1  # shown just now, not laid out yet: its row is not in the sum
        # The dialog's border (2 rows), the footer and one spare row.
        room = max(1, self.size.height - others - 4)
        preview.styles.max_height = min(room, 16)
        self.call_after_refresh(self._count_hidden)

    def _count_hidden(self) -> None:
        try:
            self._count()
        except NoMatches:
            pass  # answered and dismissed before this ran

    def _count(self) -> None:
        preview = self.query_one("#preview", VerticalScroll)
        hidden = max(0, preview.virtual_size.height - preview.scrollable_content_region.height)
        below = max(0, hidden - round(preview.scroll_y))
        more = self.query_one("#more", Static)
        if below:
            words = f"… {more_lines(below)} below (PgDn scrolls)"
        else:  # scrolled to the end: say so, and keep the row (the layout does not jump)
            words = "end of the preview (PgUp scrolls back)"
        more.update(Text(words, style="dim") if hidden else "")
        more.display = bool(hidden)
        preview.set_class(bool(hidden), "-more")

    def on_mouse_scroll_down(self) -> None:
        self.call_after_refresh(self._count_hidden)

    def on_mouse_scroll_up(self) -> None:
        self.call_after_refresh(self._count_hidden)

    def action_scroll_preview(self, pages: int) -> None:
        preview = self.query_one("#preview", VerticalScroll)
        if pages > 0:
            preview.scroll_page_down(animate=False)
        else:
            preview.scroll_page_up(animate=False)
        self.call_after_refresh(self._count_hidden)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select_always":  # `2` of a plain question: select its rule
            return not self.prompt.edit and self._by_key("2") is not None
        if action == "key" and parameters:
            key = str(parameters[0])
            if key == "2" and not self.prompt.edit:
                return False
            return self._by_key(key) is not None
        return True

    def _by_key(self, key: str) -> PermissionChoice | None:
        return next((c for c in self.choices if c.key == key and c.id != "deny"), None)

    def _by_button(self, button_id: str | None) -> PermissionChoice | None:
        return next((c for c in self.choices if _button_id(c) == button_id), None)

    def _choice_ids(self) -> list[str]:
        return [b.id for b in self.query(Button) if b.id]

    def _select(self, choice: str | None) -> None:
        self.selected = choice
        self.selected_at = self.clock()
        for button in self.query(Button):
            button.set_class(button.id == choice, "-selected")
        if self.query("#choices"):
            self.query_one("#choices", Static).update(self._choices())

    def on_key(self, event: events.Key) -> None:
        typing = self.query_one("#feedback", Input).has_focus  # the field takes what is typed
        # Typing meant for the prompt (letters, spaces, other digits) clears a selection, so a
        # `2` inside a sentence never stays armed for the Enter that ends it.
        prompt_key = event.key not in self._DIALOG_KEYS and not self.guard.early(event)
        if not typing and prompt_key and self.selected is not None:
            self._select(None)
        answers = self._answers_key(event.key)
        if take_typed_key(self, self.guard, event, dialog_key=answers, typing=typing):
            self.call_after_refresh(self._fit_preview)

    def _answers_key(self, key: str) -> bool:
        """Whether `key` is one of this dialog's keys (its digits only when it offers them)."""
        if key in ("1", "3"):
            return True
        if key in ("2", "4", "5"):
            return self._by_key(key) is not None
        return key in self._DIALOG_KEYS

    def answer(self, decision: PermissionDecision) -> bool:
        resolver = self.prompt.resolver
        if not resolver.claim():
            self.dismiss(None)
            return False
        resolver.set_claimed(decision)
        self.dismiss(decision)
        return True

    def _decision(self, choice: PermissionChoice) -> PermissionDecision:
        if choice.id == "deny":
            return self._deny()
        # The engine's mapping (PermissionQuestion.decision_for), as ACP's: one place for it.
        return self.prompt.decision_for(choice.id) or self._deny()

    def _deny(self) -> PermissionDecision:
        # Without feedback the turn ends, as in Claude Code; with it, the model reads it and goes on.
        return answers.deny(self._feedback_text(), end_turn=True)

    def action_key(self, key: str) -> None:
        choice = self._by_key(key)
        if self._guarded() or choice is None:
            return
        if choice.confirm:
            self._select(_button_id(choice))
        else:
            self.answer(self._decision(choice))

    def action_allow_once(self) -> None:
        self.action_key("1")

    def mode_key(self) -> None:
        """Shift+Tab while this dialog is open: where it offers "accept all edits" it selects it
        (Enter confirms and switches to acceptEdits, as Claude Code's Shift+Tab does); elsewhere
        nothing, so the mode never changes under an open question."""
        self.action_key("4")

    def action_select_always(self) -> None:
        self.action_key("2")

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
        choice = self._by_button(self.selected)
        if self._guarded() or choice is None:
            return
        if self.clock() - self.selected_at < self.key_guard_s:
            # Selected and confirmed faster than anyone reads the dialog: typing, not a choice.
            self._select(None)
            return
        self.answer(self._decision(choice))

    def action_deny(self) -> None:
        # Esc denies and ends the turn even while feedback is being typed (as Claude Code's Esc
        # in its amend box): only Enter sends the feedback.
        if not self._guarded():
            self.answer(answers.deny("", end_turn=True))

    def action_feedback(self) -> None:
        if self._guarded():
            return
        field = self.query_one("#feedback", Input)
        field.add_class("-active")
        field.focus()
        self.call_after_refresh(self._fit_preview)

    def _feedback_text(self) -> str:
        field = self.query_one("#feedback", Input)
        return field.value if field.has_class("-active") else ""

    @on(Input.Submitted, "#feedback")
    def _feedback_sent(self) -> None:
        self.answer(self._deny())

    @on(Button.Pressed)
    def _clicked(self, event: Button.Pressed) -> None:
        choice = self._by_button(event.button.id)
        if choice is not None:
            self.answer(self._decision(choice))


def _button_id(choice: PermissionChoice) -> str:
    return choice.id.replace("_", "-")


def _short(choice: PermissionChoice) -> str:
    """A button's words: the choice without its rule (the list above shows the rule)."""
    return {
        "allow_once": "Allow once",
        "allow_session": "This file",
        "accept_edits": "All edits",
        "allow_always": "Always allow",
        "deny": "Deny",
    }[choice.id]
