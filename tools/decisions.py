"""Value types shared by tools and the permission system: validation and permission decisions.

They live in `tools/` because a tool's own `validate_input` and `check_permissions` return them, and
`tools/` may not import the application.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Behavior = Literal["allow", "deny", "ask", "passthrough"]
# How long an allowed answer's rules hold (PermissionDecision.remember).
Remember = Literal["", "session", "always"]


@dataclass(frozen=True)
class ValidationResult:
    """The answer of `validate_input`: ok, or a message for the model with an error code."""

    ok: bool
    message: str = ""
    error_code: int = 0
    # Refused because a permission rule denies it (a denied path caught before the permission
    # stage): the call is one of the result's permission_denials, as in Claude Code.
    permission_denied: bool = False

    @classmethod
    def success(cls) -> ValidationResult:
        return _OK

    @classmethod
    def failure(cls, message: str, error_code: int = 1) -> ValidationResult:
        return cls(False, message, error_code)

    @classmethod
    def denied(cls, message: str, error_code: int = 3) -> ValidationResult:
        return cls(False, message, error_code, permission_denied=True)


_OK = ValidationResult(True)


@dataclass(frozen=True)
class DecisionReason:
    """Provenance of a permission decision: what decided it, so denials can say exactly why.

    `kind` is one of "rule", "mode", "hook", "check", "tool", "user", "classifier", "abort",
    "headless", "other". For a rule: `rule` is its text and `source` where it came from. `part`
    names the part of a compound command (or the path) the decision is about.
    """

    kind: str
    text: str
    rule: str = ""
    source: str = ""
    part: str = ""

    def describe(self) -> str:
        return self.text


@dataclass(frozen=True)
class PermissionDecision:
    """What a permission check concluded.

    "passthrough" means "not mine to judge": a tool's own check returns it when it has no opinion,
    and the general permission system then decides (it never means "allowed").
    """

    behavior: Behavior
    message: str = ""
    reason: DecisionReason | None = None
    updated_input: Mapping[str, Any] | None = None
    # Rules that "always allow" would add for this call (already in rule syntax), at most 5.
    suggestions: tuple[str, ...] = ()
    # Free-form feedback from a user who denied (sent to the model).
    feedback: str = ""
    # How long an allowed answer's `suggestions` hold: "session" (for the rest of it) or
    # "always" (saved to .lathe/settings.local.toml); "" applies them to this call only.
    remember: Remember = ""
    # A user's deny that ends the turn (as Claude Code does): the batch's other calls do not run
    # and the model is not asked again until the user writes. A deny with feedback never does.
    end_turn: bool = False
    # Permission updates a front end asks for with its answer (the SDK's updatedPermissions,
    # ACP's "always reject"): app.engine.permission_updates.PermissionUpdate values, which this
    # layer cannot name; the engine applies them before the call runs.
    updates: tuple[object, ...] = ()
    # An allow that also switches the session's permission mode before the call runs (an
    # approved plan goes on in the mode the user picked; "accept all edits"): the mode's name.
    set_mode: str | None = None

    @classmethod
    def allow(
        cls,
        reason: DecisionReason | None = None,
        updated_input: Mapping[str, Any] | None = None,
    ) -> PermissionDecision:
        return cls("allow", reason=reason, updated_input=updated_input)

    @classmethod
    def deny(cls, message: str, reason: DecisionReason | None = None) -> PermissionDecision:
        return cls("deny", message=message, reason=reason)

    @classmethod
    def ask(
        cls,
        message: str,
        reason: DecisionReason | None = None,
        suggestions: tuple[str, ...] = (),
    ) -> PermissionDecision:
        return cls("ask", message=message, reason=reason, suggestions=suggestions)

    @classmethod
    def passthrough(cls, message: str = "") -> PermissionDecision:
        return cls("passthrough", message=message)
