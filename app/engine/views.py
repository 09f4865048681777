"""Render-ready views a front end draws: a tool call's state, a permission question.

Both are frozen and built inside the engine (app/engine/tool_views.py) from the executor's
outcomes, so no front end sees a CallOutcome, a PermissionPrompt or a Tool. A view is replaced,
never changed: each ToolCallUpdated carries the call's whole state as it is now.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app.engine import answers
from app.execution.resolve_once import ResolveOnce
from tools.base import CallKind as CallKind
from tools.base import CallLabel as CallLabel
from tools.base import CallLocation as CallLocation
from tools.base import FileDiff as FileDiff
from tools.base import OutputFocus as OutputFocus
from tools.base import ResultView as ResultView
from tools.base import ToolPreview as ToolPreview
from tools.decisions import DecisionReason, PermissionDecision
from tools.interaction import UserInteraction

# The tools' own declarations (tools/base.py): a preview before a call runs, a result view after.

# A call's life: "queued" -> "checking" (the executor took it: validation, PreToolUse hooks, the
# permission decision; "awaiting_approval" while a question is open) -> "running" (allowed: its
# tool runs now; only then is `started_at` set) -> one of the four ends. A denied or blocked call
# goes from "checking" (or "queued") to its end without ever "running".
ToolCallStatus = Literal[
    "queued",
    "checking",
    "awaiting_approval",
    "running",
    "done",
    "failed",
    "denied",
    "interrupted",
]
# "started": now "checking"; "running": allowed and running now (exactly once per call that runs,
# after its permission decision and PreToolUse hooks, MCP tools included).
ToolCallChange = Literal[
    "queued", "started", "running", "progressed", "awaiting_approval", "answered", "finished"
]


@dataclass(frozen=True)
class ToolCallView:
    """One tool call as it stands. `started_at` (set by the "running" change: the call was allowed
    and its tool started) and `elapsed` (the time it ran, without the permission step or any wait
    for the user) are on CALL_CLOCK (time.monotonic, app.engine.api.CALL_CLOCK): a front end's
    running clock is CALL_CLOCK() - started_at. `output_tail` is the newest output (at most
    MAX_TAIL_CHARS); `progress_text` the latest progress report's status line ("" when it had
    none)."""

    tool_use_id: str
    name: str
    title: str
    input: Mapping[str, Any] = field(default_factory=dict)
    status: ToolCallStatus = "queued"
    concurrency_safe: bool = False
    preview: ToolPreview | None = None
    progress_text: str = ""
    fraction: float | None = None
    output_tail: str = ""
    result: ResultView | None = None
    started_at: float | None = None
    elapsed: float | None = None
    # The Agent tool's call this one runs under (a subagent's tools); None at the top level.
    parent_tool_use_id: str | None = None
    # The tool's one-line label (Bash's command and its description; a path; a pattern), and
    # which end of a long output the collapsed block shows.
    label: CallLabel | None = None
    output_focus: OutputFocus = "head"
    # What the tool declares of this call (Tool.call_kind, Tool.locations; no I/O): the kind of
    # work, the files it touches, and its user_facing_name ("srv - Title (MCP)"; "" unknown).
    kind: CallKind = "other"
    locations: tuple[CallLocation, ...] = ()
    display_name: str = ""

    @property
    def finished(self) -> bool:
        return self.status in ("done", "failed", "denied", "interrupted")

    @property
    def change(self) -> FileDiff | None:
        """The file change as whole texts: what the call made once it finished (Write's and
        Edit's result), else what its question's preview proposed (the file on disk, read off
        the loop; NotebookEdit's notebook with the cell changed); None when neither is known.
        An Edit of a file too large to preview, or whose string is not on disk (an editor's
        unsaved buffer holds it), proposes its strings alone, as Claude Code's ACP adapter
        sends them."""
        if self.result is not None and self.result.change is not None:
            return self.result.change
        return self.preview.change if self.preview is not None else None


@dataclass(frozen=True)
class ToolCallUpdated:
    """A call changed. `change` says what happened; `output` is the chunk of output that came
    with a "progressed" change (the view's tail already holds it)."""

    view: ToolCallView
    change: ToolCallChange
    output: str = ""


ChoiceId = Literal["allow_once", "allow_session", "accept_edits", "allow_always", "deny"]


@dataclass(frozen=True)
class PermissionChoice:
    """One answer a plain approval offers; `key` is the TUI's key for it (`3` denies in every
    dialog, so a habit never turns into a grant). `confirm`: a grant that outlives the call, which
    a key only selects and Enter confirms. `rules`: the rules it would add, shown as they are."""

    id: ChoiceId
    label: str
    key: str
    confirm: bool = False
    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class PermissionQuestion:
    """A question for the user about one call. Answer it once with `answer` or `choose`; the
    first answer wins (Ctrl+C, a hook or another front end may answer first), later ones are
    refused (False). `interaction` is set when the tool needs more than allow or deny
    (AskUserQuestion's questions, ExitPlanMode's plan); the answer is then a PermissionDecision
    built from the user's input."""

    tool_use_id: str
    tool_name: str
    title: str
    input: Mapping[str, Any]
    message: str
    reason: DecisionReason | None
    suggestions: tuple[str, ...]
    resolver: ResolveOnce[PermissionDecision]
    preview: ToolPreview | None = None
    destructive: bool = False
    interaction: UserInteraction | None = None
    # The subagent whose call this is ("Explore agent"); "" for the session's own calls.
    agent: str = ""
    # An edit (the tool's permission kind is path_write): the edit choices below. The engine
    # proved each offer approves this call (app/engine/choices.py); `suggestions` are the
    # rules "always allow" saves.
    edit: bool = False
    session_rules: tuple[str, ...] = ()
    accept_edits: bool = False

    @property
    def reason_text(self) -> str:
        return self.reason.describe() if self.reason else self.message

    @property
    def choices(self) -> tuple[PermissionChoice, ...]:
        """In the order shown; "deny" last."""
        once = PermissionChoice("allow_once", "Allow once", "1")
        deny = PermissionChoice("deny", "Deny", "3")
        rules = self.suggestions
        if not self.edit:
            always = PermissionChoice(
                "allow_always", "Always allow: " + ", ".join(rules), "2", True, rules
            )
            return (once, always, deny) if rules else (once, deny)
        out = [once]
        if self.session_rules:
            label = "Allow edits to this file this session"
            out.append(PermissionChoice("allow_session", label, "2", False, self.session_rules))
        if self.accept_edits:
            label = "Accept all edits this session (acceptEdits)"
            out.append(PermissionChoice("accept_edits", label, "4", True))
        if rules:
            label = "Always allow for the project: " + ", ".join(rules)
            out.append(PermissionChoice("allow_always", label, "5", True, rules))
        return (*out, deny)

    def choice(self, choice: ChoiceId) -> PermissionChoice | None:
        return next((c for c in self.choices if c.id == choice), None)

    @property
    def answered(self) -> bool:
        return self.resolver.is_claimed()

    def answer(self, decision: PermissionDecision) -> bool:
        return self.resolver.resolve(decision)

    def choose(self, choice: ChoiceId, feedback: str = "", *, end_turn: bool = False) -> bool:
        """Answer with one of `choices` (a choice not offered is refused). A deny may carry
        feedback for the model, or end the turn (`end_turn`; feedback wins over it)."""
        decision = self.decision_for(choice, feedback, end_turn=end_turn)
        return decision is not None and self.answer(decision)

    def decision_for(
        self, choice: ChoiceId, feedback: str = "", *, end_turn: bool = False
    ) -> PermissionDecision | None:
        """The decision one of `choices` stands for (None: not offered), for a front end that
        answers its own way (the TUI's dialog claims the question first; ACP maps its options)."""
        offered = self.choice(choice)
        if offered is None:
            return None
        if choice == "allow_once":
            return answers.allow_once()
        if choice == "allow_session":
            return answers.allow_for_session(offered.rules)
        if choice == "accept_edits":
            return answers.accept_edits()
        if choice == "allow_always":
            return answers.allow_always(offered.rules)
        return answers.deny(feedback, end_turn=end_turn)

    def abort(self) -> bool:
        """Answer as aborted (the turn is being interrupted)."""
        return self.answer(answers.aborted())

    def on_answered(self, callback: Callable[[PermissionDecision], None]) -> None:
        """Call `callback` once answered (at once if it already is): a dialog closes itself
        when someone else answered, without polling."""
        self.resolver.add_done_callback(callback)


@dataclass(frozen=True)
class PermissionRequested:
    """The user must answer `question` before its call can go on."""

    question: PermissionQuestion
