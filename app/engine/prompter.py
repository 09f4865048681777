"""The interactive prompter: a permission question becomes an event; the front end answers it.

The question is announced through the session's sink as PermissionRequested; whoever answers
resolves the prompt's ResolveOnce (the dialog, or Ctrl+C through the pipeline's abort race). When
the answer is "always allow", the rules are written to `.lathe/settings.local.toml` and applied to
the running session before the tool runs. An approved plan (ExitPlanMode) switches the permission
mode to the one the user picked, also before the tool runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from app.engine.events import EngineEvent, Notice, PermissionRequested
from app.execution.interfaces import PermissionPrompt
from app.permissions import PersistError, RuleDecider, allow_for_session, always_allow
from app.permissions.modes import parse_mode
from tools.decisions import PermissionDecision


class EventPrompter:
    def __init__(self, sink: Callable[[EngineEvent], None], decider: RuleDecider) -> None:
        self.sink = sink
        self.decider = decider

    async def ask(self, prompt: PermissionPrompt) -> None:
        self.sink(PermissionRequested(prompt))
        decision = await prompt.resolver.wait()
        self.remember(decision)

    def remember(self, decision: PermissionDecision) -> None:
        mode = decision.extra.get("set_mode") if decision.behavior == "allow" else None
        if isinstance(mode, str):
            # An approved plan goes on in the mode the user picked, before the tool's call runs.
            self.decider.set_context(
                replace(self.decider.context, mode=parse_mode(mode), pre_plan_mode=None)
            )
        if decision.behavior != "allow" or not decision.suggestions:
            return
        rules = list(decision.suggestions)[:5]
        if decision.extra.get("always"):
            try:
                self.decider.set_context(always_allow(self.decider.context, rules))
                self.sink(Notice(f"Saved to .lathe/settings.local.toml: {', '.join(rules)}"))
            except PersistError as exc:
                # The answer still stands for this session; the file could not take it.
                self.decider.set_context(allow_for_session(self.decider.context, rules))
                self.sink(
                    Notice(f"Could not save the rule ({exc}); allowed for this session", "warning")
                )
        elif decision.extra.get("session"):
            self.decider.set_context(allow_for_session(self.decider.context, rules))
