"""The interactive prompter: a permission question becomes an event; the front end answers it.

The pipeline's PermissionPrompt (with the tool's preview, computed off the loop by the permission
step) becomes a frozen PermissionQuestion announced through the session as PermissionRequested; whoever answers resolves it (the dialog, a protocol front end, or Ctrl+C
through the pipeline's abort race). When
the answer is "always allow", the rules are written to `.lathe/settings.local.toml` and applied to
the running session before the tool runs. An approved plan (ExitPlanMode) switches the permission
mode to the one the user picked, also before the tool runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from app.engine.choices import offer_for
from app.engine.events import Notice, PermissionRequested
from app.engine.permission_updates import (
    PermissionUpdate,
    UpdateError,
    apply_updates,
    directory_changes,
)
from app.engine.tool_views import question_for
from app.execution.interfaces import PermissionPrompt
from app.permissions import PersistError, RuleDecider, allow_for_session, always_allow
from app.permissions.modes import parse_mode
from tools.decisions import PermissionDecision

if TYPE_CHECKING:
    from app.engine.session import Session


class EventPrompter:
    def __init__(self, decider: RuleDecider, session: Session | None = None) -> None:
        self.decider = decider
        self.session = session

    def bind(self, session: Session) -> None:
        """The session that announces the questions (it exists after its parts)."""
        self.session = session

    async def ask(self, prompt: PermissionPrompt) -> None:
        session = self.session
        if session is None:
            raise RuntimeError("EventPrompter.ask before bind()")
        # Only answers proved to approve this call are offered (no rule that would not match).
        offer = await offer_for(prompt, self.decider)
        if not prompt.resolver.is_claimed():  # Ctrl+C while the preview was read: no dialog
            session.emit(PermissionRequested(question_for(prompt, offer)))
        decision = await prompt.resolver.wait()
        self.remember(decision)

    def sink(self, event: Notice) -> None:
        if self.session is not None:
            self.session.emit(event)

    def remember(self, decision: PermissionDecision) -> None:
        updates = [u for u in decision.updates if isinstance(u, PermissionUpdate)]
        if len(updates) != len(decision.updates):
            # Not an update this engine knows: never silently widened or narrowed.
            self.sink(Notice("A permission update of an unknown kind was ignored", "warning"))
        if updates:
            self._apply_updates(updates)
        mode = decision.set_mode if decision.behavior == "allow" else None
        if mode is not None:
            # An approved plan goes on in the mode the user picked, before the tool's call runs.
            self.decider.set_context(
                replace(self.decider.context, mode=parse_mode(mode), pre_plan_mode=None)
            )
        if decision.behavior != "allow" or not decision.suggestions:
            return
        rules = list(decision.suggestions)[:5]
        if decision.remember == "always":
            try:
                self.decider.set_context(always_allow(self.decider.context, rules))
                self.sink(Notice(f"Saved to .lathe/settings.local.toml: {', '.join(rules)}"))
            except PersistError as exc:
                # The answer still stands for this session; the file could not take it.
                self.decider.set_context(allow_for_session(self.decider.context, rules))
                self.sink(
                    Notice(f"Could not save the rule ({exc}); allowed for this session", "warning")
                )
        elif decision.remember == "session":
            self.decider.set_context(allow_for_session(self.decider.context, rules))

    def _apply_updates(self, updates: Sequence[PermissionUpdate]) -> None:
        """A front end's permission updates (the SDK's updatedPermissions, ACP's "always
        reject"), applied before the tool's call runs; one that fails is a warning."""
        try:
            notes = apply_updates(self.decider, updates)
        except UpdateError as exc:
            self.sink(Notice(f"Could not apply the permission update: {exc}", "warning"))
            return
        for note in notes:
            self.sink(Notice(note))
        added, gone = directory_changes(updates)
        session = self.session
        if (added or gone) and session is not None:
            kept = [d for d in session.context.working_dirs if d not in gone]
            kept.extend(d for d in added if d not in kept)
            session.context = replace(session.context, working_dirs=tuple(kept))
