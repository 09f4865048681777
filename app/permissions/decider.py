"""The decision for one call (pipeline stage 7, without asking anyone): allow, deny or ask.

Layers in order: the tool's own check (its deny wins at once, its ask wins over any allow), blanket
deny rules, then the tool family's rules (Bash parts, paths, domains, MCP names), then the mode.
Every answer carries a DecisionReason naming the rule and its source, or the check, that decided.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Literal

from app import debuglog
from app.config.rules import Rule
from app.permissions.context import PermissionContext
from app.permissions.load import working_dir_forms
from app.permissions.matching import (
    domain_matches,
    mcp_matches,
    url_host_normalised,
    url_hosts,
    url_is_plain,
)
from app.permissions.messages import PLAN_MODE_MESSAGE, rule_reason, source_label
from app.permissions.pathcheck import allow_match, ask_for, deny_for
from app.permissions.pathprograms import path_write_reason
from app.permissions.paths import (
    DEVICE_PATHS,
    candidates,
    inside,
    is_unc,
    memory_write_ok,
    protected_any,
)
from app.permissions.procpaths import tool_path_secret
from app.permissions.suggest import path_suggestion
from app.permissions.view import ContextPermissionView
from tools.base import Tool, ToolContext
from tools.decisions import DecisionReason, PermissionDecision


class RuleDecider:
    """The PermissionDecider of app/execution/interfaces.py, over an immutable PermissionContext.

    `context` is swapped as a whole (new rules, new mode); each decision reads one snapshot.
    """

    def __init__(self, context: PermissionContext) -> None:
        self._context = context

    @property
    def context(self) -> PermissionContext:
        return self._context

    def set_context(self, context: PermissionContext) -> None:
        self._context = context

    def blanket_denied(self, tool_name: str) -> bool:
        return self._context.blanket_denied(tool_name)

    def view(self) -> ContextPermissionView:
        """A PermissionView for ToolContext.permissions that follows this decider's context."""
        return ContextPermissionView(lambda: self._context)

    async def decide(
        self,
        tool: Tool[Any],
        input: Any,
        observable_input: Mapping[str, Any],
        context: ToolContext,
    ) -> PermissionDecision:
        return await self._decide(self._context, tool, input, observable_input, context)

    async def decide_as_asking(
        self,
        tool: Tool[Any],
        input: Any,
        observable_input: Mapping[str, Any],
        context: ToolContext,
    ) -> PermissionDecision:
        """The decision with dontAsk read as default mode: what a PreToolUse hook's allow
        answers in Claude Code (dontAsk denies only what would have asked; a hook's allow is
        an answer, so it goes through unless a rule denies or asks)."""
        pc = self._context
        if pc.mode == "dontAsk":
            pc = replace(pc, mode="default")
        return await self._decide(pc, tool, input, observable_input, context)

    async def _decide(
        self,
        pc: PermissionContext,
        tool: Tool[Any],
        input: Any,
        observable_input: Mapping[str, Any],
        context: ToolContext,
    ) -> PermissionDecision:
        try:
            own = await tool.check_permissions(input, context)
        except Exception as exc:  # a broken check must not become an allow
            debuglog.record("permissions", f"{tool.name}.check_permissions raised; denied", exc)
            text = f"{tool.name}'s own permission check failed: {exc}"
            return PermissionDecision.deny(text, DecisionReason("tool", text))
        if own.behavior == "deny":
            return own
        try:
            decision = decide_call(tool, input, observable_input, pc, context)
        except Exception as exc:  # never crash the turn; never let a failure become an allow
            debuglog.record("permissions", f"the rule check of {tool.name} raised; asked", exc)
            text = f"the permission check of {tool.name} failed ({type(exc).__name__}: {exc})"
            decision = PermissionDecision.ask(text, DecisionReason("check", text))
        if decision.behavior == "deny":
            return decision
        if own.behavior == "ask":
            if decision.behavior == "ask" and decision.reason and decision.reason.kind == "rule":
                return decision
            if pc.mode == "dontAsk":
                return PermissionDecision.deny(own.message, own.reason)
            if own.reason is None:
                text = own.message or f"{tool.name} asks for confirmation"
                return PermissionDecision.ask(text, DecisionReason("tool", text), own.suggestions)
            return own
        if own.behavior == "allow" and decision.behavior == "ask":
            reason = decision.reason
            if reason is not None and (reason.kind == "rule" or "protected" in reason.text):
                return decision
            return (
                own
                if own.reason
                else PermissionDecision.allow(
                    DecisionReason("tool", f"{tool.name} allowed this call itself")
                )
            )
        return decision


def decide_call(
    tool: Tool[Any],
    input: Any,
    observable: Mapping[str, Any],
    pc: PermissionContext,
    context: ToolContext,
) -> PermissionDecision:
    """Rules and mode for one call (the tool's own check is the caller's business)."""
    name = tool.name
    for rule in pc.deny:
        if rule.specifier is None and (
            rule.tool == name or (rule.is_mcp and mcp_matches(rule, name))
        ):
            reason = rule_reason(rule, "denied")
            return PermissionDecision.deny(reason.text, reason)
    cwd = context.cwd or pc.project_dir
    dirs = _dirs(pc, context)
    # The tool's declared kind picks the rule family; a tool that declares none is generic,
    # which allows only what a rule allows or what the tool declares read-only.
    kind = tool.permission_kind
    if kind == "shell":
        # The shell analysis (its parser, git and path checks) loads with the first command it
        # judges, not before a session's first request (issue 18).
        from app.permissions.bash import decide_bash

        return decide_bash(_subject(tool, input, observable) or "", pc, cwd, dirs)
    if kind in ("path_read", "path_write"):
        return _decide_path(tool, input, observable, pc, cwd, dirs)
    if kind == "url":
        return _decide_web(tool, input, observable, pc)
    return _decide_generic(tool, input, pc, context)


def _subject(tool: Tool[Any], input: Any, observable: Mapping[str, Any]) -> str | None:
    """What rules match: the observable input's field (backfilled: absolute, `~` expanded, as
    hooks see it), else the tool's own accessor."""
    field = tool.subject_field
    value = observable.get(field) if field else None
    return value if isinstance(value, str) else tool.permission_subject(input)


def _dirs(pc: PermissionContext, context: ToolContext) -> tuple[str, ...]:
    out = list(pc.working_dirs)
    for folder in context.working_dirs:
        for form in working_dir_forms(folder):
            if form not in out:
                out.append(form)
    return tuple(out)


def _tool_wide(rules: tuple[Rule, ...], name: str) -> Rule | None:
    return next((r for r in rules if r.specifier is None and r.tool == name), None)


def _mode_fallback(
    pc: PermissionContext, text: str, reason: DecisionReason, suggestions: tuple[str, ...] = ()
) -> PermissionDecision:
    if pc.mode == "bypassPermissions":
        return PermissionDecision.allow(DecisionReason("mode", "bypassPermissions mode"))
    if pc.mode == "dontAsk":
        return PermissionDecision.deny(
            f"{text} (dontAsk mode denies what is not pre-allowed)", reason
        )
    return PermissionDecision.ask(text, reason, suggestions)


def _decide_path(
    tool: Tool[Any],
    input: Any,
    observable: Mapping[str, Any],
    pc: PermissionContext,
    cwd: str,
    dirs: tuple[str, ...],
) -> PermissionDecision:
    name = tool.name
    access: Literal["read", "write"] = "read" if tool.permission_kind == "path_read" else "write"
    path = _subject(tool, input, observable) or cwd
    if "\x00" not in path:
        path = tool.permission_path(input, path)
    if "\x00" in path:
        # No file has a NUL in its name; a rule could never match what the OS would open.
        text = "the path contains a NUL character"
        return PermissionDecision.deny(text, DecisionReason("check", text, part=repr(path)))
    if is_unc(path):
        text = (
            f"{path} is a network (UNC) path; touching it could send credentials to a remote host"
        )
        return PermissionDecision.deny(text, DecisionReason("check", text, part=path))
    cands = candidates(path, cwd, pc.home)
    reach = tool.path_reach if access == "read" else "path"
    secret = tool_path_secret(cands, reach == "contents")
    if secret:
        return PermissionDecision.deny(secret, DecisionReason("check", secret, part=cands[0]))
    # Glob and Grep read what lies below their folder: a rule denying its content denies them.
    below = tuple(c.rstrip("/") + "/x" for c in cands) if reach != "path" else ()
    rule = deny_for(pc, access, cands + below)
    if rule is not None:
        reason = rule_reason(rule, "denied")
        return PermissionDecision.deny(
            reason.text, DecisionReason("rule", reason.text, rule.display(), rule.source, cands[0])
        )
    if access == "read" and any(c in DEVICE_PATHS for c in cands):
        text = f"{cands[0]} is a device that never ends or blocks"
        return PermissionDecision.deny(text, DecisionReason("check", text, part=cands[0]))
    rule = ask_for(pc, access, cands) or _tool_wide(pc.ask, name)
    if rule is not None:
        reason = rule_reason(rule, "set to ask")
        return PermissionDecision.ask(reason.text, reason)
    if access == "write":
        if pc.mode == "plan":
            return PermissionDecision.deny(
                PLAN_MODE_MESSAGE, DecisionReason("mode", PLAN_MODE_MESSAGE, part=cands[0])
            )
        if pc.memory_dirs and memory_write_ok(cands, pc.memory_dirs):
            # A subagent's own notes (Claude Code 2.1.332 writes them without asking, measured);
            # the deny and ask rules above still hold.
            text = "the agent's own memory folder"
            return PermissionDecision.allow(DecisionReason("check", text, part=cands[0]))
        why = next(
            (protected_any(c, cwd, pc.home) for c in cands if protected_any(c, cwd, pc.home)), ""
        ) or next((w for w in (path_write_reason(c, pc, cwd) for c in cands) if w), "")
        if why:
            text = f"writing {cands[0]} needs confirmation: {why}"
            return PermissionDecision.ask(text, DecisionReason("check", text, part=cands[0]))
    rule = allow_match(pc, access, cands) or _tool_wide(pc.allow, name)
    if rule is not None:
        return PermissionDecision.allow(rule_reason(rule, "allowed"))
    is_inside = all(inside(c, dirs) for c in cands)
    if is_inside and access == "read":
        return PermissionDecision.allow(
            DecisionReason("check", "reading inside the working folders", part=cands[0])
        )
    if is_inside and pc.mode == "acceptEdits":
        return PermissionDecision.allow(
            DecisionReason(
                "mode", "acceptEdits mode: edit inside the working folders", part=cands[0]
            )
        )
    family = "Read" if access == "read" else "Edit"
    verb = "reading" if access == "read" else "writing"
    where = "" if is_inside else ", outside the working folders,"
    text = f"{verb} {cands[0]}{where} is not allowed by any rule"
    suggestion = path_suggestion(family, cands[-1], pc.project_dir)
    return _mode_fallback(pc, text, DecisionReason("check", text, part=cands[0]), (suggestion,))


def _decide_web(
    tool: Tool[Any], input: Any, observable: Mapping[str, Any], pc: PermissionContext
) -> PermissionDecision:
    url = _subject(tool, input, observable) or ""
    hosts = url_hosts(url)
    name = tool.name

    def hit(rules: tuple[Rule, ...], all_hosts: bool) -> Rule | None:
        for rule in rules:
            if rule.tool != name or rule.specifier is None:
                continue
            pool = hosts if all_hosts else hosts[:1]
            # Deny and ask rules also cover subdomains; an allow names exactly one host.
            if any(domain_matches(rule.specifier, h, subdomains=all_hosts) for h in pool):
                return rule
        return None

    rule = hit(pc.deny, True)
    if rule is not None:
        reason = rule_reason(rule, "denied")
        return PermissionDecision.deny(reason.text, reason)
    rule = hit(pc.ask, True) or _tool_wide(pc.ask, name)
    if rule is not None:
        reason = rule_reason(rule, "set to ask")
        return PermissionDecision.ask(reason.text, reason)
    rule = _tool_wide(pc.allow, name)
    if rule is None and url_is_plain(url) and url_host_normalised(url):
        rule = hit(pc.allow, False)
    if rule is not None:
        return PermissionDecision.allow(rule_reason(rule, "allowed"))
    host = hosts[0] if hosts else ""
    if not url_host_normalised(url) and any(r.tool == name for r in pc.deny):
        # A host that cannot be normalised cannot be checked against the deny rules: ask, in
        # every mode (dontAsk turns that into a denial).
        text = f"the host of {url[:200]!r} cannot be normalised to check the WebFetch deny rules"
        reason = DecisionReason("check", text, part=url[:200])
        if pc.mode == "dontAsk":
            return PermissionDecision.deny(text, reason)
        return PermissionDecision.ask(text, reason)
    text = (
        f"fetching from {host} is not allowed by any rule"
        if host and url_is_plain(url)
        else f"the URL {url[:200]!r} does not name one plain http(s) host"
    )
    suggestion = (f"{name}(domain:{host})",) if host and url_is_plain(url) else ()
    return _mode_fallback(pc, text, DecisionReason("check", text, part=url[:200]), suggestion)


def _generic_subjects(tool: Tool[Any], input: Any, context: ToolContext) -> tuple[str, ...]:
    """Every name a `Tool(name)` rule may use for this call: the subject, and the other names of
    the same thing a tool knows (a skill's folder and frontmatter names), so that a deny written
    with either name holds for a call using the other."""
    name = tool.name
    try:
        target = tool.permission_subject(input)
    except Exception as exc:
        debuglog.record("permissions", f"{name}.permission_subject raised; no subject", exc)
        return ()
    extra: tuple[str, ...] = ()
    try:
        extra = tuple(str(n) for n in tool.permission_subject_names(input, context))
    except Exception as exc:
        debuglog.record("permissions", f"{name}.permission_subject_names raised", exc)
    return tuple(dict.fromkeys(n for n in (target, *extra) if n))


def _own_match(
    check: Callable[[str, str], bool], spec: str, name: str, on_error: bool = False
) -> bool:
    """A broken check never widens: no allow, and (`on_error` True for denies) a deny."""
    try:
        return bool(check(spec, name))
    except Exception as exc:
        debuglog.record("permissions", "rule_specifier_matches raised", exc)
        return on_error


def _generic_denial(tool: Tool[Any], targets: tuple[str, ...], rule: Rule) -> PermissionDecision:
    reason = rule_reason(rule, "denied")
    label = tool.denied_subject_label
    if label is not None and targets and rule.specifier is not None:
        # Claude Code's text for a subject a rule denies (the Agent tool: an agent type).
        text = (
            f"{label} '{targets[0]}' has been denied by permission rule '{rule.display()}' "
            f"from {source_label(rule.source)}."
        )
        return PermissionDecision.deny(
            text, DecisionReason("rule", text, rule.display(), rule.source)
        )
    return PermissionDecision.deny(reason.text, reason)


def _decide_generic(
    tool: Tool[Any], input: Any, pc: PermissionContext, context: ToolContext
) -> PermissionDecision:
    name = tool.name
    targets = _generic_subjects(tool, input, context)
    own = tool.rule_specifier_matches  # a glob unless the tool reads its rules its own way

    def matches(rule: Rule, strict: bool) -> bool:
        if rule.is_mcp:
            return mcp_matches(rule, name, strict=strict)
        if rule.tool != name:
            return False
        if rule.specifier is None:
            return True
        spec = rule.specifier
        # The tool's reading of its rules (Skill: Claude Code's `name:*` prefix form). An allow
        # uses only that; a deny also holds as a glob (stricter, fail closed).
        if strict:  # an allow holds only for the name the call used
            return bool(targets) and _own_match(own, spec, targets[0])
        if tool.subject_case_blind:  # `Agent(rev)` denies `Rev`, which finds the same agent
            return any(fnmatch.fnmatchcase(t.casefold(), spec.casefold()) for t in targets)
        return any(
            _own_match(own, spec, t, on_error=True) or fnmatch.fnmatchcase(t, spec) for t in targets
        )

    rule = next((r for r in pc.deny if matches(r, False)), None)
    if rule is not None:
        return _generic_denial(tool, targets, rule)
    rule = next((r for r in pc.ask if matches(r, False)), None)
    if rule is not None:
        reason = rule_reason(rule, "set to ask")
        return PermissionDecision.ask(reason.text, reason)
    try:
        read_only = bool(tool.is_read_only(input))
    except Exception as exc:
        debuglog.record("permissions", f"{name}.is_read_only raised; not read-only", exc)
        read_only = False
    # A tool may declare itself usable in plan mode though it is not read-only (Skill: it loads
    # instructions; what they lead to is judged call by call, plan mode included).
    if pc.mode == "plan" and not read_only and not tool.usable_in_plan_mode:
        return PermissionDecision.deny(PLAN_MODE_MESSAGE, DecisionReason("mode", PLAN_MODE_MESSAGE))
    rule = next((r for r in pc.allow if matches(r, True)), None)
    if rule is not None:
        return PermissionDecision.allow(rule_reason(rule, "allowed"))
    if read_only and tool.read_only_allows:
        return PermissionDecision.allow(DecisionReason("check", f"{name} is read-only"))
    text = f"using {name} is not allowed by any rule"
    return _mode_fallback(pc, text, DecisionReason("check", text), (name,))
