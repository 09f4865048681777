"""The ninth black-box attack's classes (round 8), through the real loaders and decider.

F1: a carrier checked into a folder nobody trusted -- here an agent file's `permissionMode`, and so
every forked skill that names that agent -- must not widen the subagent's mode over its parent's,
as a checked-in `defaultMode` may not (round 7's F3). The user's own agent files keep Claude
Code's rule (the control), and a checked-in mode that is not wider still applies.

N1 (the report's MCP observation, a class of its own): a tool's read-only claim made by someone
else's code -- an MCP server's `readOnlyHint`, from `.mcp.json`, the user's settings, a plugin or
the SDK -- never lets it run without a rule, in any mode but bypass (Claude Code 2.1.332 asks
for it, measured); lathe's own read-only tools still run (the control).

F3, F2 (shell state set without `NAME=`): a `for` loop's variable, `read`, `mapfile`, `getopts`,
`wait -p`, `unset`, `let`, `export`/`declare` naming PATH, HOME, PWD, OLDPWD, CDPATH, IFS or a
dangerous variable change what the later words run or name; such a command is never approved
and not run in bypass while deny rules exist. The tilde forms only the shell knows (`~-`, `~N`,
`~+N`) and any command the analysis cannot follow are refused in bypass under a path deny rule
as under a Bash deny rule. Harmless loops and reads stay as they were (the controls).

F4: a deny (or ask) rule naming an agent type holds for every spelling the session resolves to
that type (`Rev`, `REV`, `explore`), and where every subagent starts (denied_agent_type), so a
forked skill's `agent:` cannot reach it either; allow rules stay exact."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from app.agents.loader import load_agents
from app.config.loader import load_settings
from app.config.rules import parse_rule
from app.execution.interfaces import ToolCheckDecider
from app.mcp.bridge import McpTool
from app.permissions.context import PermissionContext
from app.permissions.decider import RuleDecider
from app.permissions.load import context_from_settings
from app.permissions.subagent_mode import (
    ModeDecider,
    denied_agent_type,
    subagent_mode,
    untrusted_carrier,
)
from app.permissions.trust import set_trusted
from tests.unit.permissions.helpers import bash, context, make_env, make_project
from tools.abort import AbortSignal
from tools.agent import AgentTool
from tools.base import Tool, ToolContext
from tools.bash import BashTool
from tools.subagent import AgentSummary
from tools.todo_write import TodoWriteTool
from tools.write import WriteTool

# --- F1: a checked-in agent's permissionMode ---------------------------------------------------

AGENT = "---\nname: {name}\ndescription: tidies files\npermissionMode: {mode}\n---\nYou tidy.\n"


def _agent_file(folder: Path, name: str, mode: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(AGENT.format(name=name, mode=mode))


def _session(tmp: Path, mode: str, trusted: bool) -> tuple[PermissionContext, dict[str, str]]:
    """The headless session's context, built as app/compose.py builds it."""
    tmp.mkdir(parents=True, exist_ok=True)
    env = make_env(tmp)
    project = make_project(tmp)
    if trusted:
        set_trusted(project, env=env)
    loaded = load_settings(project, env=env)
    pc = context_from_settings(loaded, trusted=True, env=env, confine_untrusted=True)
    return PermissionContext(**{**pc.__dict__, "mode": mode}), env


def _child(pc: PermissionContext, env: dict[str, str], agent: str) -> tuple[Any, str]:
    """The subagent's decider and warning, as app/engine/subagents.py picks them."""
    project = Path(pc.project_dir)
    definition = load_agents(project, Path(env["LATHE_CONFIG_DIR"]), env).get(agent)
    assert definition is not None
    base = RuleDecider(pc)
    mode, warning = subagent_mode(
        definition.permission_mode,
        pc.mode,
        untrusted=untrusted_carrier(definition.source, pc),
    )
    return (ModeDecider(base, mode) if mode else base), warning


def _decide(decider: Any, pc: PermissionContext, tool: Tool[Any], raw: dict[str, Any]) -> str:
    ctx = ToolContext(
        cwd=pc.project_dir, project_dir=pc.project_dir, working_dirs=(pc.project_dir,)
    )
    obs = dict(raw)
    if "file_path" in obs:
        obs["file_path"] = ctx.resolve_path(obs["file_path"])
    decision = asyncio.run(decider.decide(tool, tool.parse_input(raw), obs, ctx))
    return str(decision.behavior)


def _calls(pc: PermissionContext) -> list[tuple[Tool[Any], dict[str, Any]]]:
    target = str(Path(pc.project_dir) / "src" / "main.py")
    return [
        (WriteTool(), {"file_path": target, "content": "planted\n"}),
        (BashTool(), {"command": "mkdir planted_dir"}),
        (BashTool(), {"command": "touch planted"}),
    ]


@pytest.mark.parametrize("parent", ["default", "dontAsk"])
@pytest.mark.parametrize("folder", [".claude/agents", ".lathe/agents", ".claude/agents/nested"])
def test_checked_in_agent_mode_does_not_widen_untrusted(
    tmp_path: Path, parent: str, folder: str
) -> None:
    pc, env = _session(tmp_path, parent, trusted=False)
    assert pc.confined
    _agent_file(Path(pc.project_dir) / folder, "writer", "acceptEdits")
    child, warning = _child(pc, env, "writer")
    assert "permissionMode acceptEdits ignored: this folder is not trusted" in warning
    assert child.context.mode == parent
    for tool, raw in _calls(pc):
        assert _decide(child, pc, tool, raw) != "allow", raw


@pytest.mark.parametrize("parent", ["default", "dontAsk"])
def test_trusted_folder_and_users_own_agent_keep_claude_codes_rule(
    tmp_path: Path, parent: str
) -> None:
    # Control: the same file in a trusted folder, and in the user's own agents folder of an
    # untrusted one, gives the subagent acceptEdits, so its Write is allowed (the test can fail).
    pc, env = _session(tmp_path / "t", parent, trusted=True)
    _agent_file(Path(pc.project_dir) / ".claude" / "agents", "writer", "acceptEdits")
    child, warning = _child(pc, env, "writer")
    assert warning == "" and child.context.mode == "acceptEdits"
    assert [_decide(child, pc, t, r) for t, r in _calls(pc)] == ["allow"] * 3

    pc, env = _session(tmp_path / "u", parent, trusted=False)
    _agent_file(Path(env["LATHE_CONFIG_DIR"]) / "agents", "mine", "acceptEdits")
    child, warning = _child(pc, env, "mine")
    assert warning == "" and child.context.mode == "acceptEdits"


@pytest.mark.parametrize(("declared", "expected"), [("plan", "plan"), ("dontAsk", "dontAsk")])
def test_checked_in_narrower_mode_still_applies(
    tmp_path: Path, declared: str, expected: str
) -> None:
    pc, env = _session(tmp_path, "default", trusted=False)
    _agent_file(Path(pc.project_dir) / ".claude" / "agents", "looker", declared)
    child, warning = _child(pc, env, "looker")
    assert warning == "" and child.context.mode == expected


def test_untrusted_tui_folder_is_an_untrusted_carrier_too(tmp_path: Path) -> None:
    pc = PermissionContext(mode="default", trusted=False, confined=False)
    assert untrusted_carrier("project", pc)
    assert not untrusted_carrier("user", pc) and not untrusted_carrier("plugin", pc)
    assert not untrusted_carrier("project", PermissionContext(mode="default"))
    for declared in ("acceptEdits", "bypassPermissions", "auto"):
        assert subagent_mode(declared, "default", untrusted=True)[0] is None


# --- N1: an MCP server's readOnlyHint ----------------------------------------------------------


class _Caller:
    server_name = "srv"

    async def call_tool(
        self, tool: str, arguments: dict[str, Any], abort: AbortSignal
    ) -> types.CallToolResult:
        raise AssertionError("the decider never calls the tool")


def _mcp_tool(hints: types.ToolAnnotations | None) -> McpTool:
    spec = types.Tool(name="t", input_schema={"type": "object"}, annotations=hints)
    return McpTool(_Caller(), spec)


HINTS = [
    types.ToolAnnotations(read_only_hint=True),
    types.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
    types.ToolAnnotations(read_only_hint=True, open_world_hint=False, title="Read"),
]


def _generic(pc: PermissionContext, tool: Tool[Any], raw: dict[str, Any]) -> str:
    ctx = ToolContext(cwd="/", project_dir="/", working_dirs=("/",))
    decision = asyncio.run(RuleDecider(pc).decide(tool, tool.parse_input(raw), raw, ctx))
    return str(decision.behavior)


@pytest.mark.parametrize("hints", HINTS)
@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk", "acceptEdits"])
def test_mcp_read_only_hint_never_allows_by_itself(mode: str, hints: types.ToolAnnotations) -> None:
    tool = _mcp_tool(hints)
    assert tool.is_read_only({}) and tool.is_concurrency_safe({})  # still concurrent
    pc = PermissionContext(mode=mode)  # type: ignore[arg-type]
    # Plan mode: it passes plan mode's read-only gate, then needs a rule like any tool.
    assert _generic(pc, tool, {}) == ("deny" if mode == "dontAsk" else "ask")


def test_mcp_read_only_hint_runs_with_a_rule_or_in_bypass_and_own_tools_still_run() -> None:
    tool = _mcp_tool(HINTS[0])
    for rule in ("mcp__srv__t", "mcp__srv", "mcp__srv__*"):
        pc = PermissionContext(mode="dontAsk", allow=(parse_rule(rule, "allow", "cli"),))
        assert _generic(pc, tool, {}) == "allow", rule
    assert _generic(PermissionContext(mode="bypassPermissions"), tool, {}) == "allow"
    deny = PermissionContext(
        mode="bypassPermissions", deny=(parse_rule("mcp__srv", "deny", "cli"),)
    )
    assert _generic(deny, tool, {}) == "deny"
    # The control: lathe's own read-only tool needs no rule (so the test above can fail).
    todo = {"todos": [{"content": "x", "status": "pending", "activeForm": "x"}]}
    assert _generic(PermissionContext(mode="dontAsk"), TodoWriteTool(), todo) == "allow"


def test_mcp_read_only_hint_asks_before_the_permission_system_is_configured() -> None:
    ctx = ToolContext(cwd="/", project_dir="/", working_dirs=("/",))
    decision = asyncio.run(ToolCheckDecider().decide(_mcp_tool(HINTS[0]), {}, {}, ctx))
    assert decision.behavior == "ask"


# --- F3, F2: shell state set without NAME= ------------------------------------------------------

STATE_SETTERS = [
    "for {v} in tools; do {cmd}; done",
    "for {v} in a b; do :; done; {cmd}",
    "while read -r {v}; do {cmd}; done < README.md",
    "read {v} <<< tools; {cmd}",
    "read -ra {v} <<< tools; {cmd}",
    "IFS=: read -r x {v} <<< a:tools; {cmd}",
    "builtin read {v} <<< tools; {cmd}",
    "mapfile -t {v} < README.md; {cmd}",
    "readarray {v} < README.md; {cmd}",
    "getopts ab {v}; {cmd}",
    "wait -p {v}; {cmd}",
    "unset {v}; {cmd}",
    "let {v}=1; {cmd}",
    "export {v}=tools; {cmd}",
    "local {v}=tools; {cmd}",
    "printf -v {v} %s tools; {cmd}",
]
STATE_VARS = ["PATH", "HOME", "PWD", "OLDPWD", "CDPATH", "IFS", "BASH_ENV"]
CMD = {"PATH": "ls", "HOME": "cat ~/x", "PWD": "cat ~+/README.md", "OLDPWD": "ls",
       "CDPATH": "cd src && ls", "IFS": "ls", "BASH_ENV": "ls"}  # fmt: skip


@pytest.mark.parametrize("var", STATE_VARS)
@pytest.mark.parametrize("setter", STATE_SETTERS)
def test_state_set_without_assignment_is_never_approved(
    tmp_path: Path, setter: str, var: str
) -> None:
    command = setter.format(v=var, cmd=CMD[var])
    # Every part a rule could name is allowed, so only the state change can stop it.
    allow = ("Bash(ls:*)", "Bash(cat:*)", "Bash(read:*)", "Bash(for:*)", "Bash(unset:*)",
             "Bash(export:*)", "Bash(mapfile:*)", "Bash(cd:*)", "Bash(getopts:*)")  # fmt: skip
    for mode in ("default", "plan", "dontAsk", "acceptEdits"):
        pc = context(tmp_path / mode, allow=allow, mode=mode)
        assert bash(pc, command).behavior != "allow", (mode, command)
    pc = context(tmp_path / "bypass", deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert bash(pc, command).behavior == "deny", command
    pc = context(tmp_path / "bypass-read", deny=("Read(./.env)",), mode="bypassPermissions")
    assert bash(pc, command).behavior == "deny", command
    # The control: no deny rule, nothing for bypass to keep (the test can fail).
    pc = context(tmp_path / "bypass-none", mode="bypassPermissions")
    assert bash(pc, command).behavior == "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "for f in a b; do echo $f; done",
        "for i in 1 2 3; do ls; done",
        'while read -r line; do echo "$line"; done < README.md',
        'read -r first < README.md; echo "$first"',
        "unset x; ls",
        "export FOO=1; ls",
        "cat ~+/README.md",
    ],
)
def test_harmless_loops_and_reads_are_unchanged(tmp_path: Path, command: str) -> None:
    pc = context(tmp_path / "b", deny=("Bash(rm:*)", "Read(./.env)"), mode="bypassPermissions")
    assert bash(pc, command).behavior == "allow", command
    pc = context(tmp_path / "a", allow=("Bash(read:*)", "Bash(export:*)", "Bash(unset:*)"))
    assert "sets" not in bash(pc, command).message, command


TILDES = [
    "cd src && cat ~-/.env",
    "cd src && cat ~-/secrets/key.txt",
    "pushd src >/dev/null; cat ~1/.env",
    "pushd src >/dev/null; cat ~+1/.env",
    "pushd src >/dev/null; cat ~-1/.env",
    "cd src; cd ..; cat ~-/../.env",
    "cd src && cp ~-/.env ./copy && cat copy",
    "cd src && grep -r TOKEN ~-",
    "cd src && head -c 99 < ~-/.env",
    "OLDPWD=/x; cat ~-/.env",
]


@pytest.mark.parametrize("command", TILDES)
def test_shell_only_tilde_paths_are_refused_in_bypass_under_path_denies(
    tmp_path: Path, command: str
) -> None:
    for deny in (("Read(./.env)", "Read(./secrets/**)"), ("Edit(./src/**)",)):
        pc = context(tmp_path / deny[0][:4], deny=deny, mode="bypassPermissions")
        assert bash(pc, command).behavior == "deny", (deny, command)
    # The control: no deny rule, so nothing to check against (a `cp` whose operand only the
    # shell knows still asks: it may write a protected path).
    pc = context(tmp_path / "none", mode="bypassPermissions")
    assert bash(pc, command).behavior == ("ask" if " cp " in command else "allow"), command
    pc = context(tmp_path / "default", allow=("Bash(cat:*)", "Bash(grep:*)", "Bash(cd:*)"))
    assert bash(pc, command).behavior == "ask", command


OPAQUE = [
    "case x in *) cat .env;; esac",
    ": ${F:=.env}; cat $F",
    "cat ${F:-.env}",
    'cat "${F:-.env}"',
    "x=.env; cat ${x@Q}",
    "[[ -f .env ]] && cat .env",
    "select f in .env; do cat $f; break; done <<< 1",
    "cat $'.env'",
    'cat $".env"',
]


@pytest.mark.parametrize("command", OPAQUE)
def test_unanalysable_commands_are_refused_in_bypass_under_a_read_deny(
    tmp_path: Path, command: str
) -> None:
    pc = context(tmp_path / "r", deny=("Read(./.env)",), mode="bypassPermissions")
    assert bash(pc, command).behavior == "deny", command
    pc = context(tmp_path / "none", mode="bypassPermissions")
    assert bash(pc, command).behavior == "allow", command  # the control


# --- F4: agent types and case -------------------------------------------------------------------


def _agent_call(pc: PermissionContext, subagent_type: str) -> str:
    raw = {"description": "d", "prompt": "p", "subagent_type": subagent_type}
    return _generic(pc, AgentTool(), raw)


@pytest.mark.parametrize("spelled", ["Rev", "REV", "rEv", "rev"])
@pytest.mark.parametrize("rule", ["Agent(rev)", "Task(rev)", "Agent(r*)", "Agent(REV)"])
def test_agent_type_rules_hold_case_blind(spelled: str, rule: str) -> None:
    pc = PermissionContext(mode="bypassPermissions", deny=(parse_rule(rule, "deny", "user"),))
    assert _agent_call(pc, spelled) == "deny"
    assert "has been denied by permission rule" in denied_agent_type(pc, (spelled, "rev"))
    ask = PermissionContext(mode="bypassPermissions", ask=(parse_rule(rule, "ask", "user"),))
    assert _agent_call(ask, spelled) == "ask"


def test_agent_type_allow_stays_exact_and_other_types_run() -> None:
    deny = PermissionContext(mode="default", deny=(parse_rule("Agent(rev)", "deny", "user"),))
    assert _agent_call(deny, "reviewer") == "allow"  # the control: another type
    assert denied_agent_type(deny, ("reviewer",)) == ""
    everything = PermissionContext(mode="default", deny=(parse_rule("Agent", "deny", "user"),))
    assert denied_agent_type(everything, ("general-purpose",))


def test_an_exact_rule_does_not_cover_a_command_after_a_state_change(tmp_path: Path) -> None:
    pc = context(tmp_path, allow=("Bash(git status)", "Bash(git diff:*)"))
    assert bash(pc, "git status").behavior == "allow"  # the control
    for command in ("for HOME in tools; do git status; done",
                    "read HOME <<< tools; git status", "for HOME in tools; do git diff HEAD; done"):  # fmt: skip
        assert bash(pc, command).behavior == "ask", command


@pytest.mark.parametrize(
    "command",
    [
        "cd src && printf x > ~-/.lathe/settings.local.toml",
        "cd src && mkdir -p ~-/.lathe",
        "cd src && cp /etc/hostname ~-/.git/hooks/pre-commit",
        "pushd src >/dev/null; echo x >> ~1/.git/config",
        "read HOME <<< .git; echo x > ~/config",
        "for PWD in .git; do echo x >> ~+/config; done",
        # `history -w` writes $HISTFILE, and `history -s` chose its text first.
        "HISTFILE=.git/config; history -s '[core]'; history -w",
        "read HISTFILE <<< .git/config; history -w",
        "for HISTFILE in .git/config; do history -a; done",
    ],
)
def test_hidden_write_targets_are_protected_in_bypass_without_rules(
    tmp_path: Path, command: str
) -> None:
    pc = context(tmp_path, mode="bypassPermissions")
    assert bash(pc, command).behavior == "ask", command  # -p denies it; the TUI asks
    assert bash(pc, "cd src && printf x > ../notes.txt").behavior == "allow"  # the control


def test_agent_type_denial_names_the_type_the_session_runs() -> None:
    # Claude Code 2.1.332 (measured): `explore` under `Agent(Explore)` -> "Agent type 'Explore'
    # has been denied by permission rule 'Agent(Explore)' ...".
    tool = AgentTool((AgentSummary("Explore", "looks", "*"), AgentSummary("rev", "r", "*")))
    pc = PermissionContext(mode="default", deny=(parse_rule("Agent(Explore)", "deny", "cli"),))
    ctx = ToolContext(cwd="/", project_dir="/", working_dirs=("/",))
    raw = {"description": "d", "prompt": "p", "subagent_type": "explore"}
    decision = asyncio.run(RuleDecider(pc).decide(tool, tool.parse_input(raw), raw, ctx))
    assert decision.behavior == "deny"
    assert decision.message.startswith("Agent type 'Explore' has been denied by permission rule")
