"""The ten-stage pipeline: every stage's refusal path and the exact texts the model reads."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.execution.interfaces import HookToolCall, NoHooks, PermissionPrompt
from app.execution.pipeline import PipelineDeps, run_tool_use
from app.execution.texts import REJECT_MESSAGE
from app.hooks.results import (
    HookAdditionalContext,
    HookBlockingError,
    HookPermissionResult,
    HookStop,
    HookUpdatedInput,
    PostToolHookItem,
    PreToolHookItem,
)
from tests.support.fake_tools import tool_use
from tools.abort import AbortController
from tools.base import Tool, ToolContext
from tools.decisions import DecisionReason, PermissionDecision


def no_progress(_: object) -> None:
    return None


class ScriptedHooks(NoHooks):
    """A HookRunner that returns fixed items and records what it was told."""

    def __init__(
        self, pre: list[PreToolHookItem] | None = None, post: list[PostToolHookItem] | None = None
    ) -> None:
        self.pre = pre or []
        self.post = post or []
        self.seen: list[tuple[str, HookToolCall, Any]] = []

    async def pre_tool_use(self, call: HookToolCall, context: ToolContext) -> list[PreToolHookItem]:
        self.seen.append(("pre", call, None))
        return self.pre

    async def post_tool_use(
        self, call: HookToolCall, response: Any, context: ToolContext
    ) -> list[PostToolHookItem]:
        self.seen.append(("post", call, response))
        return self.post

    async def post_tool_use_failure(
        self, call: HookToolCall, error: str, context: ToolContext
    ) -> list[PostToolHookItem]:
        self.seen.append(("failure", call, error))
        return self.post


class FixedDecider:
    def __init__(self, decision: PermissionDecision) -> None:
        self.decision = decision
        self.calls = 0

    async def decide(
        self, tool: Tool[Any], input: Any, observable: Mapping[str, Any], context: ToolContext
    ) -> PermissionDecision:
        self.calls += 1
        return self.decision

    async def decide_as_asking(self, tool, input, observable, context):  # type: ignore[no-untyped-def]
        return await self.decide(tool, input, observable, context)  # no modes: the same verdict


class AnsweringPrompter:
    def __init__(self, answer: PermissionDecision | None) -> None:
        self.answer = answer
        self.prompts: list[PermissionPrompt] = []

    async def ask(self, prompt: PermissionPrompt) -> None:
        self.prompts.append(prompt)
        if self.answer is not None:
            prompt.resolver.resolve(self.answer)


ALLOW = PermissionDecision.allow(DecisionReason("rule", "allowed", rule="X", source="user"))
ASK_RULE = PermissionDecision.ask(
    "asks", DecisionReason("rule", "ask rule", rule="X", source="project")
)
ASK_MODE = PermissionDecision.ask("asks", DecisionReason("mode", "not read-only"))
DENY_RULE = PermissionDecision.deny(
    "Denied by rule X", DecisionReason("rule", "deny rule", rule="X")
)


async def run(deps: PipelineDeps, ctx: ToolContext, block: dict[str, Any]) -> Any:
    return await run_tool_use(
        block, {"role": "assistant", "content": [block]}, ctx, deps, no_progress
    )


async def test_unknown_tool_exact_text(fake_tools, ctx):
    out = await run(PipelineDeps(fake_tools), ctx, tool_use("t1", "Nope"))
    assert out.result_block == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "<tool_use_error>Error: No such tool available: Nope</tool_use_error>",
        "is_error": True,
    }


async def test_schema_error_names_the_parameter(fake_tools, ctx):
    out = await run(PipelineDeps(fake_tools), ctx, tool_use("t1", "SafeSleep", ms="soon"))
    content = out.result_block["content"]
    assert content.startswith("<tool_use_error>InputValidationError: SafeSleep failed")
    assert "`ms` type is expected as `number` but provided as `string`" in content
    assert content.endswith("</tool_use_error>")
    assert out.is_error and not out.ran


async def test_unexpected_and_missing_parameters(ctx):
    from tests.support.fake_tools import SafeSleep
    from tools.base import ToolInput

    class Need(ToolInput):
        file_path: str

    class NeedTool(SafeSleep):
        name = "Need"
        input_model = Need

    out = await run(PipelineDeps([NeedTool()]), ctx, tool_use("t1", "Need", bogus=1))
    assert "The required parameter `file_path` is missing" in out.result_block["content"]
    assert "An unexpected parameter `bogus` was provided" in out.result_block["content"]


async def test_numbers_and_booleans_sent_as_strings_are_accepted(fake_tools, ctx):
    out = await run(
        PipelineDeps(fake_tools), ctx, tool_use("t1", "SafeSleep", ms="1", modifier="true")
    )
    assert not out.is_error, out.result_block
    assert fake_tools[0].calls[0].ms == 1.0 and fake_tools[0].calls[0].modifier is True


async def test_input_that_is_not_an_object(fake_tools, ctx):
    block = {"type": "tool_use", "id": "t1", "name": "SafeSleep", "input": "oops"}
    out = await run(PipelineDeps(fake_tools), ctx, block)
    assert out.is_error and "must be a JSON object" in out.result_block["content"]


async def test_validate_input_failure(fake_tools, ctx):
    deps = PipelineDeps(fake_tools, decider=FixedDecider(ALLOW))
    out = await run(deps, ctx, tool_use("t1", "Picky", ms=5000))
    assert out.result_block["content"] == "<tool_use_error>ms must be at most 1000</tool_use_error>"
    assert not out.ran


async def test_deferred_tool_schema_hint(fake_tools, ctx):
    deps = PipelineDeps(fake_tools, schema_sent=lambda name: name != "SafeSleep")
    out = await run(deps, ctx, tool_use("t1", "SafeSleep", ms="x"))
    assert 'ToolSearch (query "select:SafeSleep")' in out.result_block["content"]


async def test_observers_see_absolute_paths_call_keeps_original(fake_tools, ctx):
    hooks = ScriptedHooks()
    deps = PipelineDeps(fake_tools, hooks=hooks)
    out = await run(deps, ctx, tool_use("t1", "SafeSleep", path="sub/file.txt"))
    assert not out.is_error
    pre = hooks.seen[0][1]
    assert pre.tool_input["path"] == str(Path(ctx.cwd) / "sub" / "file.txt")
    assert fake_tools[0].calls[0].path == "sub/file.txt"
    assert out.input["path"] == "sub/file.txt"
    assert [kind for kind, _, _ in hooks.seen] == ["pre", "post"]


async def test_tilde_is_expanded_for_observers(fake_tools, ctx, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    seen: list[Mapping[str, Any]] = []

    class Recording(FixedDecider):
        async def decide(self, tool, input, observable, context):
            seen.append(observable)
            return ALLOW

    deps = PipelineDeps(fake_tools, decider=Recording(ALLOW))
    await run(deps, ctx, tool_use("t1", "UnsafeSleep", path="~/x"))
    assert seen[0]["path"] == str(tmp_path / "home" / "x")


async def test_deny_rule_blocks_and_records_denial(fake_tools, ctx):
    deps = PipelineDeps(fake_tools, decider=FixedDecider(DENY_RULE))
    out = await run(deps, ctx, tool_use("t1", "UnsafeSleep", ms=0))
    assert out.is_error and out.result_block["content"] == "Denied by rule X"
    # As Claude Code: the input as the model sent it, not the parsed form with its defaults.
    assert out.permission_denial == {
        "tool_name": "UnsafeSleep",
        "tool_use_id": "t1",
        "tool_input": {"ms": 0},
    }
    assert not out.ran and fake_tools[1].calls == []


async def test_tool_own_check_denies_with_default_decider(fake_tools, ctx):
    out = await run(PipelineDeps(fake_tools), ctx, tool_use("t1", "Picky", path="/forbidden/x"))
    assert out.is_error and out.result_block["content"] == "Picky refuses /forbidden"


async def test_headless_denial_text(fake_tools, ctx):
    deps = PipelineDeps(fake_tools, decider=FixedDecider(ASK_MODE))
    out = await run(deps, ctx, tool_use("t1", "UnsafeSleep"))
    assert out.result_block["content"] == (
        "Permission to use UnsafeSleep was denied: not read-only. lathe -p cannot ask; "
        "allow it with --allowedTools or settings."
    )
    assert out.permission_denial is not None


async def test_user_allows_through_prompter(fake_tools, ctx):
    prompter = AnsweringPrompter(PermissionDecision.allow(DecisionReason("user", "allowed once")))
    deps = PipelineDeps(fake_tools, decider=FixedDecider(ASK_MODE), prompter=prompter)
    out = await run(deps, ctx, tool_use("t1", "UnsafeSleep"))
    assert not out.is_error and out.ran
    assert prompter.prompts[0].tool_name == "UnsafeSleep"


async def test_user_denies_with_reject_message(fake_tools, ctx):
    prompter = AnsweringPrompter(PermissionDecision.deny("", DecisionReason("user", "no")))
    deps = PipelineDeps(fake_tools, decider=FixedDecider(ASK_MODE), prompter=prompter)
    out = await run(deps, ctx, tool_use("t1", "UnsafeSleep"))
    assert out.result_block["content"] == REJECT_MESSAGE and not out.ran


async def test_abort_while_dialog_open_never_starts_tool(fake_tools, ctx):
    prompter = AnsweringPrompter(None)  # the user never answers
    controller = AbortController()
    deps = PipelineDeps(fake_tools, decider=FixedDecider(ASK_MODE), prompter=prompter)
    call_ctx = ctx.with_call("t1", controller.signal)
    task = asyncio.ensure_future(run(deps, call_ctx, tool_use("t1", "UnsafeSleep")))
    while not prompter.prompts:
        await asyncio.sleep(0)
    controller.abort("user_interrupt")
    out = await task
    assert out.synthetic == "user_interrupt" and out.result_block["content"] == REJECT_MESSAGE
    assert fake_tools[1].calls == []
    # A late answer from the dialog loses the race and changes nothing.
    assert prompter.prompts[0].resolver.resolve(ALLOW) is False


async def test_hook_allow_does_not_override_deny_rule(fake_tools, ctx):
    hooks = ScriptedHooks(pre=[HookPermissionResult("allow", "hook says fine")])
    deps = PipelineDeps(fake_tools, hooks=hooks, decider=FixedDecider(DENY_RULE))
    out = await run(deps, ctx, tool_use("t1", "UnsafeSleep"))
    assert out.is_error and not out.ran


async def test_hook_allow_does_not_override_explicit_ask_rule(fake_tools, ctx):
    prompter = AnsweringPrompter(PermissionDecision.deny("", DecisionReason("user", "no")))
    hooks = ScriptedHooks(pre=[HookPermissionResult("allow")])
    deps = PipelineDeps(fake_tools, hooks=hooks, decider=FixedDecider(ASK_RULE), prompter=prompter)
    out = await run(deps, ctx, tool_use("t1", "UnsafeSleep"))
    assert len(prompter.prompts) == 1 and out.is_error


async def test_hook_allow_skips_mode_prompt(fake_tools, ctx):
    prompter = AnsweringPrompter(None)
    hooks = ScriptedHooks(pre=[HookPermissionResult("allow")])
    deps = PipelineDeps(fake_tools, hooks=hooks, decider=FixedDecider(ASK_MODE), prompter=prompter)
    out = await run(deps, ctx, tool_use("t1", "UnsafeSleep"))
    assert not out.is_error and prompter.prompts == []


async def test_hook_deny_wins_over_allow_rule(fake_tools, ctx):
    hooks = ScriptedHooks(pre=[HookPermissionResult("deny", "no rm today")])
    decider = FixedDecider(ALLOW)
    deps = PipelineDeps(fake_tools, hooks=hooks, decider=decider)
    out = await run(deps, ctx, tool_use("t1", "UnsafeSleep"))
    assert out.result_block["content"] == "no rm today" and not out.ran


async def test_hook_ask_forces_prompt(fake_tools, ctx):
    prompter = AnsweringPrompter(PermissionDecision.allow())
    hooks = ScriptedHooks(pre=[HookPermissionResult("ask", "check this")])
    deps = PipelineDeps(fake_tools, hooks=hooks, decider=FixedDecider(ALLOW), prompter=prompter)
    out = await run(deps, ctx, tool_use("t1", "UnsafeSleep"))
    assert len(prompter.prompts) == 1 and not out.is_error


async def test_hook_updated_input_is_what_runs(fake_tools, ctx):
    hooks = ScriptedHooks(pre=[HookUpdatedInput({"ms": 0, "path": "rewritten"})])
    deps = PipelineDeps(fake_tools, hooks=hooks, decider=FixedDecider(ALLOW))
    await run(deps, ctx, tool_use("t1", "UnsafeSleep", path="original"))
    assert fake_tools[1].calls[0].path == "rewritten"


async def test_hook_updated_input_is_validated(fake_tools, ctx):
    hooks = ScriptedHooks(pre=[HookUpdatedInput({"ms": "never"})])
    deps = PipelineDeps(fake_tools, hooks=hooks, decider=FixedDecider(ALLOW))
    out = await run(deps, ctx, tool_use("t1", "UnsafeSleep"))
    assert out.is_error and "updatedInput is invalid" in out.result_block["content"]
    assert fake_tools[1].calls == []


async def test_hook_stop_blocks_call(fake_tools, ctx):
    hooks = ScriptedHooks(pre=[HookStop("policy says no")])
    deps = PipelineDeps(fake_tools, hooks=hooks, decider=FixedDecider(ALLOW))
    out = await run(deps, ctx, tool_use("t1", "UnsafeSleep"))
    assert out.result_block["content"] == "<tool_use_error>policy says no</tool_use_error>"


async def test_hook_context_and_post_feedback_become_extra_content(fake_tools, ctx):
    hooks = ScriptedHooks(
        pre=[HookAdditionalContext("remember the style guide")],
        post=[HookBlockingError("lint failed")],
    )
    deps = PipelineDeps(fake_tools, hooks=hooks)
    out = await run(deps, ctx, tool_use("t1", "SafeSleep"))
    texts = [b["text"] for b in out.extra_content]
    assert any("remember the style guide" in t for t in texts)
    assert any("lint failed" in t for t in texts)
    assert not out.is_error


async def test_tool_error_and_crash_become_error_results(fake_tools, ctx):
    hooks = ScriptedHooks()
    deps = PipelineDeps(fake_tools, hooks=hooks)
    failed = await run(deps, ctx, tool_use("t1", "SafeSleep", fail=True))
    assert failed.is_error and failed.result_block["content"] == "SafeSleep failed on purpose"
    crashed = await run(deps, ctx, tool_use("t2", "SafeSleep", crash=True))
    assert crashed.is_error and crashed.result_block["content"] == "Error: RuntimeError: boom"
    assert [kind for kind, _, _ in hooks.seen if kind == "failure"] == ["failure", "failure"]


async def test_large_output_is_persisted_with_preview(ctx):
    from tests.support.fake_tools import SafeSleep

    class Loud(SafeSleep):
        name = "Loud"
        max_result_size_chars = 1000

        async def call(self, input, context, can_use_tool, parent_message, on_progress):
            from tools.base import ToolResult

            return ToolResult("line\n" * 5000)

    out = await run(PipelineDeps([Loud()]), ctx, tool_use("big1", "Loud"))
    content = out.result_block["content"]
    path = Path(ctx.session_dir) / "tool-results" / "big1.txt"
    assert content.startswith(
        f"<persisted-output>Output too large (25000 characters). Full output saved to: {path}\n\n"
        "Preview (first 2KB):\nline\n"
    )
    assert content.endswith("\n...</persisted-output>")
    assert path.read_text() == "line\n" * 5000
    assert out.persisted_path == str(path)


async def test_empty_output_is_named(ctx):
    from tests.support.fake_tools import SafeSleep

    class Quiet(SafeSleep):
        name = "Quiet"

        async def call(self, input, context, can_use_tool, parent_message, on_progress):
            from tools.base import ToolResult

            return ToolResult("")

    out = await run(PipelineDeps([Quiet()]), ctx, tool_use("q", "Quiet"))
    assert out.result_block["content"] == "(Quiet completed with no output)"


async def test_alias_resolves_through_fallback(ctx):
    from tests.support.fake_tools import SafeSleep

    class Renamed(SafeSleep):
        name = "NewName"
        aliases = ("OldName",)

    tool = Renamed()
    out = await run(PipelineDeps([], fallback_tools=[tool]), ctx, tool_use("a", "OldName"))
    assert not out.is_error
    # A canonical name that is not in the pool is not resurrected by the fallback.
    out = await run(PipelineDeps([], fallback_tools=[tool]), ctx, tool_use("b", "NewName"))
    assert out.is_error and "No such tool available: NewName" in out.result_block["content"]


async def test_internal_fields_are_stripped(ctx):
    from tests.support.fake_tools import SafeSleep

    class Internal(SafeSleep):
        name = "Internal"
        internal_fields = ("path",)

    tool = Internal()
    out = await run(PipelineDeps([tool]), ctx, tool_use("i", "Internal", path="/etc/shadow"))
    assert not out.is_error and tool.calls[0].path == ""


async def test_the_question_carries_the_tools_title_and_a_real_diff(tmp_path):
    from tools.edit import EditTool
    from tools.files.readstate import record_read

    target = tmp_path / "a.txt"
    target.write_text("keep\nold line\n")
    ctx = ToolContext(cwd=str(tmp_path), project_dir=str(tmp_path), working_dirs=(str(tmp_path),))
    record_read(ctx, str(target), True, None, None)
    prompter = AnsweringPrompter(PermissionDecision.deny("", DecisionReason("user", "no")))
    deps = PipelineDeps([EditTool()], decider=FixedDecider(ASK_MODE), prompter=prompter)
    edit = {"file_path": "a.txt", "old_string": "old line", "new_string": "new line"}
    await run(deps, ctx, tool_use("t1", "Edit", **edit))
    (prompt,) = prompter.prompts
    assert prompt.title == "Edit" and prompt.preview is not None
    assert prompt.preview.kind == "diff" and prompt.preview.path == str(target)
    assert "-old line" in prompt.preview.text and "+new line" in prompt.preview.text
    assert " keep" in prompt.preview.text  # context from the file on disk, not the strings
