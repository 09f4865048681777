"""The PermissionDecisions a front end answers a permission question with.

"Always allow" is an allow whose `suggestions` are the rules to persist (`remember="always"`);
the engine writes them to `.lathe/settings.local.toml`; "always reject" a denial whose
`updates` save deny rules there. A denial with feedback carries the user's
words in `feedback`, for the model. A denial without feedback may end the turn (`end_turn=True`,
what the TUI does, as Claude Code): the batch's other calls are not run and the model is not asked
again until the user writes; `ends_turn(decision)` tells. A denial with feedback never ends it.
"""

from __future__ import annotations

from dataclasses import replace

from app.execution.outcome import ends_turn as ends_turn
from app.execution.texts import REJECT_MESSAGE, REJECT_WITH_FEEDBACK_PREFIX
from tools.decisions import DecisionReason, PermissionDecision

# What the model reads after a denial: Claude Code's own words, so prompts tuned for it still work.
DENIED_MESSAGE = REJECT_MESSAGE


def allow_once() -> PermissionDecision:
    return PermissionDecision.allow(DecisionReason("user", "allowed once by the user"))


def allow_always(rules: tuple[str, ...]) -> PermissionDecision:
    return PermissionDecision(
        "allow",
        reason=DecisionReason("user", "always allowed by the user", rule=", ".join(rules)),
        suggestions=rules,
        remember="always",
    )


def allow_for_session(rules: tuple[str, ...]) -> PermissionDecision:
    """Allow, and let `rules` approve the like for the rest of the session (nothing is saved)."""
    return PermissionDecision(
        "allow",
        reason=DecisionReason(
            "user", "allowed for this session by the user", rule=", ".join(rules)
        ),
        suggestions=rules,
        remember="session",
    )


def accept_edits() -> PermissionDecision:
    """Allow, and switch the session to acceptEdits (edits inside the working folders go on
    without asking, for the rest of the session)."""
    return PermissionDecision(
        "allow",
        reason=DecisionReason("user", "allowed by the user, who accepted all edits"),
        set_mode="acceptEdits",
    )


def approve_plan(mode: str) -> PermissionDecision:
    """Allow ExitPlanMode, and go on in `mode` (one of its request's `modes`)."""
    return PermissionDecision(
        "allow", reason=DecisionReason("user", f"plan approved by the user ({mode})"), set_mode=mode
    )


def deny(feedback: str = "", *, end_turn: bool = False) -> PermissionDecision:
    feedback = feedback.strip()
    message = REJECT_WITH_FEEDBACK_PREFIX + feedback if feedback else REJECT_MESSAGE
    return PermissionDecision(
        "deny",
        message=message,
        reason=DecisionReason("user", "denied by the user"),
        feedback=feedback,
        end_turn=end_turn and not feedback,
    )


def deny_always(rules: tuple[str, ...]) -> PermissionDecision:
    """ "Always reject": this call is denied and `rules` are saved as deny rules to
    `.lathe/settings.local.toml` (applied at once), so the same call is refused without asking."""
    from app.engine.permission_updates import PermissionUpdate

    save = PermissionUpdate("addRules", "localSettings", "deny", rules)
    return replace(deny(), updates=(save,))


def aborted() -> PermissionDecision:
    return PermissionDecision.deny("aborted", DecisionReason("abort", "the turn was interrupted"))
