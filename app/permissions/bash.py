"""Deciding one Bash call: every part of a compound command must be allowed on its own.

Order: control characters (refused), deny rules (against every reading of every part, including
commands hidden in substitutions, `sh -c` and `eval`), path deny rules (redirect targets and
arguments), ask rules, then each top-level part: protected paths, allow rules, the read-only set,
the mode. What decided is named in the reason: the part, the rule and its source, or the check.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from app.config.rules import Rule, path_rule_tools
from app.permissions.bash_bypass import bash_blind, changes_git, read_blind
from app.permissions.bash_git import git_place_risk, git_reveal_risk
from app.permissions.bash_hidden import hidden_commands, unknowable
from app.permissions.bash_paths import (
    _cd_dirs,
    _decision_serial,
    _expand,
    _inside_all,
    _link_escapes,
    _outside,
    _protected,
    _recursive_deny,
    _redirect_need,
    _serial,
    git_pathspec_deny,
    path_denies,
    pending_writes,
)
from app.permissions.bash_proven import git_unproven, unproven_program
from app.permissions.context import BashRuleIndex, PermissionContext
from app.permissions.git_hooks import hook_risk, names_subcommand
from app.permissions.git_writes import git_write_reason
from app.permissions.matching import bash_matches, bash_pattern, canonical
from app.permissions.messages import PLAN_MODE_MESSAGE, part_reason, rule_reason
from app.permissions.pathprograms import renamed_denied
from app.permissions.procpaths import bash_secret
from app.permissions.relative_path import planted_decision
from app.permissions.scriptfiles import runs_scripts, scripts_changed
from app.permissions.shell_globs import later_globs
from app.permissions.shell_state import state_change
from app.permissions.shellpaths import has_glob
from app.permissions.suggest import bash_suggestion, dedupe, runtime_words
from tools.decisions import DecisionReason, PermissionDecision
from tools.shell import (
    MAX_COMMAND_CHARS,
    ShellAnalysis,
    SimpleCommand,
    allow_form,
    analyze,
    code_reason,
    deny_forms,
    inner_code,
    is_read_only_part,
)
from tools.shell.commands import exported_danger, is_dangerous_var
from tools.shell.readonly import arith_runs_code, secret_names, takes_path_args
from tools.shell.risk import extracts_archive, list_read_risk, makes_symlink, option_risk

ACCEPT_EDITS_COMMANDS = frozenset({"mkdir", "touch", "mv", "cp", "rmdir", "ln"})
_MAX_DEPTH = 4


@dataclass(frozen=True)
class _Form:
    part: str
    words: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class _Verdict:
    part: str
    status: Literal["allow", "need", "protected"]
    reason: DecisionReason
    read_only: bool
    suggestion: str = ""


# --- every reading of the command, for deny and ask rules --------------------------------------


def _forms(analysis: ShellAnalysis, depth: int = 0) -> list[_Form]:
    out: list[_Form] = []
    for part in (*analysis.parts, *analysis.nested):
        full = tuple(f"{k}={v}" for k, v in part.assignments) + part.words
        readings = deny_forms(part.words) if part.words else []
        if part.assignments:
            readings.append(full)
        for words in readings:
            out.append(_Form(part.text, words, canonical(words)))
            code = inner_code(words)
            if code is not None and depth < _MAX_DEPTH:
                out.extend(_forms(analyze(code), depth + 1))
            for hidden in hidden_commands(words) if depth < _MAX_DEPTH else ():
                out.extend(_forms(analyze(hidden), depth + 1))
    return out


def _inner_unknowable(forms: list[_Form]) -> str:
    for form in forms:
        for code in [inner_code(form.words), *hidden_commands(form.words)]:
            if code is not None:
                why = unknowable(analyze(code))
                if why:
                    return why
    return ""


def _raw_hit(rule: Rule, command: str) -> bool:
    """For text the parser could not see into: does the rule's command name occur as a word?"""
    pattern = bash_pattern(rule.specifier)
    if pattern.kind == "prefix":
        first = pattern.prefix[0] if pattern.prefix else ""
    elif pattern.kind == "exact":
        first = pattern.exact.split(" ", 1)[0]
    elif pattern.kind == "wildcard":
        first = (rule.specifier or "").split("*", 1)[0].split(" ", 1)[0]
    else:
        return True
    if not first:
        return True
    tokens = set(re.split(r"[^A-Za-z0-9_.+@%:,=-]+", command.replace("\\", "")))
    tokens |= {t.rsplit("/", 1)[-1] for t in re.split(r"[\s;&|()<>`$'\"{}]+", command)}
    return first in tokens or first.rsplit("/", 1)[-1] in tokens


def _match_rules(
    index: BashRuleIndex, forms: list[_Form], analysis: ShellAnalysis
) -> tuple[Rule, str] | None:
    for form in forms:
        for rule in index.for_words(form.words):
            if bash_matches(bash_pattern(rule.specifier), form.words, form.text):
                return rule, form.part
    if not analysis.analysable:
        for rule in index.rules:
            if _raw_hit(rule, analysis.command):
                return rule, analysis.command
    return None


# --- path arguments ----------------------------------------------------------------------------


def decide_bash(
    command: str, pc: PermissionContext, cwd: str, dirs: tuple[str, ...]
) -> PermissionDecision:
    _serial[0] = next(_decision_serial)
    analysis = analyze(command)
    if analysis.control_chars:
        text = "the command contains control characters that could hide part of it"
        return PermissionDecision.deny(text, DecisionReason("check", text, part=command))
    secret = _proc_secret(analysis, pc, cwd)
    if secret:
        text = f"the command may read or change a process secret: {secret}"
        return PermissionDecision.deny(text, DecisionReason("check", text, part=command[:200]))
    deny_rules = pc.bash_rules("deny")
    ask_rules = pc.bash_rules("ask")
    forms = _forms(analysis)
    hit = _match_rules(deny_rules, forms, analysis)
    if hit:
        reason = rule_reason(hit[0], "denied", hit[1])
        return PermissionDecision.deny(reason.text, reason)
    if deny_rules.rules:
        readings = [(f.part, f.words) for f in forms]
        renamed = renamed_denied(deny_rules, readings, _cd_dirs(analysis, cwd, pc.home), pc)
        if renamed is not None:
            return renamed
    path_deny = path_denies(analysis, pc, cwd) or planted_decision(
        analysis, [f.words for f in forms], _cd_dirs(analysis, cwd, pc.home), pc,
        lambda w, c: _expand(w, c, pc.home),
    )  # fmt: skip
    if path_deny is not None:
        return path_deny
    link = _link_then_path(analysis, pc)
    if link is not None:
        return link
    if pc.mode == "bypassPermissions" and deny_rules.rules:
        # Nothing else stops a command in this mode: one that may be a denied one is not run,
        # nor one running code whose content no rule can see (a script, stdin, a Makefile).
        why = (
            unknowable(analysis)
            or _inner_unknowable(forms)
            or bash_blind(analysis)
            or unproven_program(f.words for f in forms)
            or _git_unproven(analysis, forms, cwd, pc)
        )
        if why:
            text = f"the command cannot be checked against the Bash deny rules ({why})"
            return PermissionDecision.deny(text, DecisionReason("check", text, part=command[:200]))
    if pc.mode == "bypassPermissions" and (deny_rules.rules or _has_path_deny(pc)):
        # `for PATH in tools; do cat f; done`, `read HOME <<< $P; cat ~/.env`: what the later
        # words run or name is not what they say, so no deny rule can be checked against them.
        # A command the analysis cannot follow (`cat ${F:-.env}`, `case`, `[[`, `$'...'`) may
        # name any file: with a path deny rule it is refused as with a Bash deny rule above.
        why = state_change(analysis) if analysis.analysable else unknowable(analysis)
        if why:
            text = f"the command cannot be checked against the deny rules ({why})"
            return PermissionDecision.deny(text, DecisionReason("check", text, part=command[:200]))
    if pc.mode == "bypassPermissions" and _has_read_deny(pc) and analysis.analysable:
        why = read_blind(analysis, pc, _cd_dirs(analysis, cwd, pc.home), _expand)
        why = why or unproven_program(f.words for f in forms)
        if why:
            text = f"the command cannot be checked against the Read deny rules ({why})"
            return PermissionDecision.deny(text, DecisionReason("check", text, part=command[:200]))
    hit = _match_rules(ask_rules, forms, analysis)
    if hit:
        reason = rule_reason(hit[0], "set to ask", hit[1])
        return PermissionDecision.ask(reason.text, reason)
    allow_rules = pc.bash_rules("allow")
    if not analysis.analysable:
        return _opaque(analysis, pc, list(allow_rules.rules))
    verdicts = _verdicts(analysis, pc, allow_rules, cwd, dirs)
    return _combine(verdicts, pc)


def _link_then_path(analysis: ShellAnalysis, pc: PermissionContext) -> PermissionDecision | None:
    """A command that creates a symbolic link and does more (`ln -s . l && cat l/.env`): every
    later path of it may go through the new link, which no check could resolve beforehand. An
    archive extraction writes paths its members name (`.git/hooks/x`)."""
    parts = (*analysis.parts, *analysis.nested)
    forms = [allow_form(p.words) or p.words for p in parts]
    if any(extracts_archive(f) for f in forms):
        text = "the command extracts an archive, whose members choose the paths it writes"
    elif len(parts) > 1 and any(makes_symlink(f) for f in forms):
        text = "the command creates a symbolic link and then uses paths that may go through it"
    else:
        return None
    if pc.mode == "bypassPermissions":
        if not any(r.specifier is not None for r in pc.deny):
            return None  # no rule a path could escape
        return PermissionDecision.deny(
            text, DecisionReason("check", text, part=analysis.command[:200])
        )
    return PermissionDecision.ask(text, DecisionReason("check", text, part=analysis.command[:200]))


def _git_unproven(
    analysis: ShellAnalysis, forms: list[_Form], cwd: str, pc: PermissionContext
) -> str:
    cwd_known = True
    for part in (*analysis.parts, *analysis.nested):
        words = allow_form(part.words) or part.words
        if words and words[0] in ("cd", "pushd", "popd") and (len(words) != 2 or part.dynamic):
            cwd_known = False
    return git_unproven(
        (f.words for f in forms),
        _cd_dirs(analysis, cwd, pc.home),
        cwd_known,
        pc.project_dir,
        lambda word, c: _expand(word, c, pc.home),
        pc.home,
    )


def _proc_secret(analysis: ShellAnalysis, pc: PermissionContext, cwd: str) -> str:
    cwds = _cd_dirs(analysis, cwd, pc.home)
    cwd_known = True
    for part in (*analysis.parts, *analysis.nested):
        words = allow_form(part.words) or part.words
        if words and words[0] in ("cd", "pushd", "popd") and (len(words) != 2 or part.dynamic):
            cwd_known = False
    return bash_secret(analysis, cwds, cwd_known, pc.home, _expand)


def _opaque(
    analysis: ShellAnalysis, pc: PermissionContext, allow: list[Rule]
) -> PermissionDecision:
    whole = analysis.command.strip()
    for rule in allow:
        pattern = bash_pattern(rule.specifier)
        if (
            pattern.kind == "any"
            or (pattern.kind == "exact" and pattern.exact in (whole,))
            or (rule.specifier is not None and rule.specifier.strip() == whole)
        ):
            reason = rule_reason(rule, "allowed")
            return PermissionDecision.allow(reason)
    if analysis.too_long:
        why = f"is longer than {MAX_COMMAND_CHARS} characters, so no rule can approve it"
    elif not analysis.parsed:
        why = "could not be parsed, so no prefix rule can approve it"
    else:
        why = "uses shell syntax that hides commands, so no prefix rule can approve it"
    text = f"this command {why}"
    reason = DecisionReason("check", text, part=whole[:200])
    if pc.mode == "bypassPermissions":
        return PermissionDecision.allow(DecisionReason("mode", "bypassPermissions mode"))
    if pc.mode == "plan":
        return PermissionDecision.deny(
            PLAN_MODE_MESSAGE, DecisionReason("mode", PLAN_MODE_MESSAGE, part=whole[:200])
        )
    if pc.mode == "dontAsk":
        return PermissionDecision.deny(text, reason)
    return PermissionDecision.ask(text, reason)


def _unsafe(part: SimpleCommand, analysis: ShellAnalysis, form: tuple[str, ...] | None) -> str:
    if part.has_substitution or part.dynamic_assignment:
        return "contains a command substitution, which no prefix rule can approve"
    if part.name_is_dynamic:
        return "runs a command whose name is only known at run time"
    if form is None:
        return "uses a wrapper in a form no prefix rule can approve"
    if form and form[0] in analysis.functions:
        return f"calls the shell function {form[0]} defined in the same command"
    bad = [k for k, _ in part.assignments if is_dangerous_var(k)]
    if bad:
        return f"sets {bad[0]}, which changes what runs"
    exported = exported_danger(part.words)
    if exported:
        return f"exports {exported}, which changes what later programs run"
    why = code_reason(form or part.words)
    if why:
        return f"runs code no prefix rule can approve ({why})"
    why = option_risk(form or part.words)
    if why:
        return f"{why}, which no prefix rule covers"
    if arith_runs_code(analysis):
        return "evaluates a variable's value inside arithmetic, which can run commands"
    return state_change(analysis)


def _rule_blocker(
    analysis: ShellAnalysis,
    part: SimpleCommand,
    words: tuple[str, ...],
    cwds: list[str],
    cwd_known: bool,
    cwd: str,
    pc: PermissionContext,
) -> str:
    """Why neither a rule nor the read-only set may approve this part, or ""."""
    if words and words[0] == "git":
        why = git_place_risk(cwds[0], pc.project_dir, len(cwds) > 1 or not cwd_known)
        if why:
            return why
        if _has_read_deny(pc):
            why = git_reveal_risk(words) or git_pathspec_deny(words, cwds, pc)
            if why:
                return why
    if _has_read_deny(pc):
        why = list_read_risk(words)
        if why:
            return f"{why}, which a Read deny rule cannot see"
    for name in secret_names(analysis):
        if "$" + name in part.text or "${" + name + "}" in part.text:
            return f"expands ${name}, which may hold a secret"
    return ""


def _read_only_blocker(
    analysis: ShellAnalysis, words: tuple[str, ...], pc: PermissionContext
) -> str:
    secrets = secret_names(analysis)
    if secrets:
        return f"belongs to a command that expands ${secrets[0]}, which may hold a secret"
    if words and _has_read_deny(pc) and words[0] in _REVEALS_NAMES:
        return f"`{words[0]}` can print files a Read deny rule cannot see"
    why = list_read_risk(words) if _has_read_deny(pc) else ""
    if why:
        return f"{why}, which a Read deny rule cannot see"
    return ""


# Read-only commands that print the content of files named only at run time.
_REVEALS_NAMES = frozenset({"xargs"})


def _has_path_deny(pc: PermissionContext) -> bool:
    paths = path_rule_tools("path_read") | path_rule_tools("path_write")
    return any(r.specifier is not None and r.tool in paths for r in pc.deny)


def _has_read_deny(pc: PermissionContext) -> bool:
    cache: dict[str, bool] | None = pc.__dict__.get("_read_deny")
    if cache is None:
        reads = path_rule_tools("path_read")
        cache = {"v": any(r.specifier is not None and r.tool in reads for r in pc.deny)}
        object.__setattr__(pc, "_read_deny", cache)
    return cache["v"]


def _verdicts(
    analysis: ShellAnalysis,
    pc: PermissionContext,
    allow: BashRuleIndex,
    cwd: str,
    dirs: tuple[str, ...],
) -> list[_Verdict]:
    cwds = [cwd]
    cwd_known = True
    out: list[_Verdict] = []
    whole = analysis.command.strip()
    # A part that may change what git runs (its config) makes every later git part unprovable:
    # the repository check reads the config as it stands before the command.
    git_taint = next((w for w in map(_nested_taint, analysis.nested) if w), "")
    state = state_change(analysis)
    for part in analysis.parts:
        text = part.text
        form = allow_form(part.words)
        unsafe = _unsafe(part, analysis, form)
        words = form if form is not None else part.words
        full = tuple(f"{k}={v}" for k, v in part.assignments) + part.words
        # 1. protected paths: never auto-approved (any mode).
        prot = _protected(part, words, cwds, pc, state) or git_write_reason(
            words, cwds, functools.partial(pending_writes, analysis, pc, cwd, part)
        )
        if prot:
            out.append(
                _Verdict(
                    text,
                    "protected",
                    DecisionReason("check", part_reason(text, prot), part=text),
                    False,
                )
            )
            continue
        # 1b. a recursive read reaching a denied file: asked in every mode, as a protected path.
        reach = "" if unsafe else _recursive_deny(words, cwds, pc)
        if reach:
            out.append(
                _Verdict(
                    text,
                    "protected",
                    DecisionReason("check", part_reason(text, reach), part=text),
                    False,
                )
            )
            continue
        # 2. allow rules.
        allowed: DecisionReason | None = None
        whole_rule = False
        rule_need = ""
        words_text = canonical(words)
        exact_texts = (words_text, canonical(full), text.strip())
        # A rule names a command; the part must be that command alone: no assignment before it
        # (`GIT_CONFIG_COUNT=1 ... git status`), and, for git, a repository known not to run code.
        extra = _rule_blocker(analysis, part, words, cwds, cwd_known, cwd, pc)
        if git_taint and words and words[0] == "git":
            extra = f"runs git after a part that may change what git runs ({git_taint})"
        git_taint = git_taint or changes_git(words, part)
        assigns = (
            f"sets {part.assignments[0][0]} before the command, and a rule covers the command alone"
            if part.assignments and words
            else ""
        )
        hooks = (
            "" if extra or not words or words[0] != "git" else hook_risk(words, cwds[0], pc.home)
        )
        for rule in () if extra or assigns else allow.for_words(words):
            pattern = bash_pattern(rule.specifier)
            if hooks and pattern.kind != "any" and not names_subcommand(rule.specifier, words):
                # `Bash(git:*)` names git, not the hook a `git commit` runs; a rule naming the
                # subcommand is the user's choice of it, hooks included.
                rule_need = part_reason(text, hooks)
                continue
            if pattern.kind == "any" or (rule.specifier or "").strip() == whole:
                # `Bash` allows every command and every file it writes; a rule naming the
                # whole command text names its redirects too.
                whole_rule = True
                allowed = rule_reason(rule, "allowed", text)
            elif pattern.kind == "exact":
                # A rule names the command's words; after `for HOME in tools` they do not say
                # what runs (git reads tools/.gitconfig), so only `Bash` itself covers it.
                if pattern.exact in exact_texts and not state:
                    allowed = rule_reason(rule, "allowed", text)
            elif not unsafe and bash_matches(pattern, words, words_text):
                allowed = rule_reason(rule, "allowed", text)
                # A prefix rule names a command, not places: a command known to take paths still
                # may not reach outside the working folders through it.
                takes_paths = (
                    takes_path_args(words[0])
                    or words[0] in ACCEPT_EDITS_COMMANDS
                    or any(has_glob(w) for w in words[1:])  # `echo ~/.ssh/*` lists a folder
                )
                outside = takes_paths and _outside(words, part, cwds, cwd_known, dirs, pc)
                if outside:
                    allowed, rule_need = None, part_reason(text, outside)
            if allowed:
                break
        if allowed is not None and allowed.rule not in ("Bash", "Bash(*)") and runs_scripts(words):
            changed = scripts_changed(words, cwds, cwd_known, pc, pending_writes(analysis, pc, cwd))
            if changed:
                allowed, rule_need = None, part_reason(text, changed)
        # 3. read-only commands and `cd` inside the working folders.
        read_only = not unsafe and is_read_only_part(part, ignore_redirects=True)
        plan_ok = not unsafe and is_read_only_part(part)
        if not words:
            read_only = plan_ok = not unsafe
        if words and words[0] == "cd" and not unsafe:
            target = words[1] if len(words) > 1 else None
            ok = False
            if target is None or target == "-" or 1 in part.dynamic or len(words) > 2:
                cwd_known = False
            else:
                expansions = [_expand(target, c, pc.home) for c in cwds]
                # `cd` to a glob or brace word, or one only the shell knows: lose track.
                if has_glob(target) or "{" in target or not all(expansions):
                    cwd_known = False
                    new = []
                else:
                    new = [e[0] for e in expansions]
                ok = cwd_known and all(_inside_all(n, dirs, pc.home) for n in new)
                cwds = cwds + [n for n in new if n not in cwds]
                if ok and allowed is None:
                    allowed = DecisionReason("check", "cd inside the working folders", part=text)
            read_only = plan_ok = ok
        elif not words and part.assignments:
            if unsafe:
                read_only = plan_ok = False
            elif allowed is None:
                allowed = DecisionReason("check", "a variable assignment", part=text)
        need = rule_need or part_reason(
            text, unsafe or extra or assigns or "is not allowed by any rule"
        )
        if read_only and not unsafe:
            blocker = extra or hooks or _read_only_blocker(analysis, words, pc)
            if blocker:
                read_only = plan_ok = False
                need = part_reason(text, blocker)
        if allowed is None and read_only:
            outside = _outside(words, part, cwds, cwd_known, dirs, pc)
            if outside:
                need = part_reason(text, outside)
            else:
                allowed = DecisionReason(
                    "check", "read-only command inside the working folders", part=text
                )
        if (
            allowed is None
            and pc.mode == "acceptEdits"
            and not unsafe
            and words
            and (words[0] in ACCEPT_EDITS_COMMANDS)
            and not _outside(words, part, cwds, cwd_known, dirs, pc, check_all=True)
            and not _link_escapes(words, cwds, dirs, pc.home)
        ):
            allowed = DecisionReason(
                "mode", "acceptEdits mode: file command inside the working folders", part=text
            )
        # 4. redirects: writes outside the working folders need approval like any write.
        if allowed is not None:
            redirect_need = _redirect_need(
                part, cwds, cwd_known, dirs, pc, "whole" if whole_rule else allowed.kind
            )
            if redirect_need:
                allowed, need = None, part_reason(text, redirect_need)
        if allowed is not None:
            out.append(_Verdict(text, "allow", allowed, plan_ok))
        else:
            out.append(
                _Verdict(
                    text,
                    "need",
                    DecisionReason("check", need, part=text),
                    plan_ok,
                    bash_suggestion(words, bool(unsafe), runtime_words(part)),
                )
            )
    late = later_globs(analysis, cwds, cwd_known, dirs, pc)  # `for f in ~/.ssh/*; do`
    if late:
        out.append(_Verdict(late[0], "need", DecisionReason("check", late[1], part=late[0]), True))
    return out


def _nested_taint(part: SimpleCommand) -> str:
    return changes_git(allow_form(part.words) or part.words, part)


def _combine(verdicts: list[_Verdict], pc: PermissionContext) -> PermissionDecision:
    mode = pc.mode
    if not verdicts:
        return PermissionDecision.allow(DecisionReason("check", "an empty command"))
    if mode == "plan" and not all(v.read_only for v in verdicts if v.part.strip()):
        first = next(v for v in verdicts if not v.read_only)
        return PermissionDecision.deny(
            PLAN_MODE_MESSAGE, DecisionReason("mode", PLAN_MODE_MESSAGE, part=first.part)
        )
    protected = [v for v in verdicts if v.status == "protected"]
    need = [v for v in verdicts if v.status != "allow"]
    if not need:
        by_rule = next((v.reason for v in verdicts if v.reason.kind == "rule"), None)
        return PermissionDecision.allow(by_rule or verdicts[0].reason)
    if mode == "bypassPermissions" and not protected:
        return PermissionDecision.allow(DecisionReason("mode", "bypassPermissions mode"))
    first = protected[0] if protected else need[0]
    if mode == "dontAsk":
        text = f"{first.reason.text} (dontAsk mode denies what is not pre-allowed)"
        return PermissionDecision.deny(text, first.reason)
    return PermissionDecision.ask(
        first.reason.text, first.reason, dedupe([v.suggestion for v in need])
    )
