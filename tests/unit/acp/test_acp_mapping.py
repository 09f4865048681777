"""The ACP front end's pure parts: permission answers, stop reasons, prompt text, and the
client-read window, which must give the model exactly what Read gives from disk."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    EmbeddedResourceContentBlock,
    RequestPermissionResponse,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from app.acp.client_fs import ClientFiles
from app.acp.permission import decision_for, question_for
from app.acp.session import prompt_text, stop_reason
from app.acp.updates import ToolView
from app.engine.api import PermissionQuestion, ToolCallView
from app.engine.events import TurnEnded
from app.execution.resolve_once import ResolveOnce
from tools.base import ToolContext
from tools.bash import BashTool
from tools.interaction import Question, QuestionOption, QuestionsRequest
from tools.read import ReadInput, ReadTool


def _bash_view(prompt: PermissionQuestion) -> ToolView:
    """A Bash call as the engine shows it (its view, not the tool)."""
    view = ToolCallView(prompt.tool_use_id, "Bash", "", prompt.input, kind="execute")
    return ToolView(view)


def bash_prompt(suggestions: tuple[str, ...] = ("Bash(npm test:*)",)) -> PermissionQuestion:
    tool_input = {"command": "npm test"}
    return PermissionQuestion(
        "b1", "Bash", "npm test", tool_input, "needs permission", None, suggestions, ResolveOnce()
    )


def chosen(option_id: str) -> RequestPermissionResponse:
    return RequestPermissionResponse(
        outcome=AllowedOutcome(outcome="selected", option_id=option_id)
    )


def test_answers_map_to_the_dialogs_decisions():
    prompt = bash_prompt()
    question = question_for(prompt, _bash_view(prompt))
    assert question is not None
    assert [o.kind for o in question.options] == [
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    ]
    once = decision_for(prompt, question, chosen("allow_once"))
    assert once.behavior == "allow" and once.remember != "always"
    always = decision_for(prompt, question, chosen("allow_always"))
    assert always.behavior == "allow" and always.remember == "always"
    assert always.suggestions == ("Bash(npm test:*)",)
    once_no = decision_for(prompt, question, chosen("reject_once"))
    assert once_no.behavior == "deny" and not once_no.updates
    # Always reject: a denial that saves the suggested rule as a deny rule.
    never = decision_for(prompt, question, chosen("reject_always"))
    assert never.behavior == "deny" and "doesn't want to proceed" in never.message
    (update,) = never.updates
    assert (update.kind, update.destination, update.behavior, update.rules) == (
        "addRules",
        "localSettings",
        "deny",
        ("Bash(npm test:*)",),
    )


@pytest.mark.parametrize(
    "response",
    [
        None,  # the client failed or went away
        RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled")),
        chosen("allow_always_and_forever"),  # never offered
    ],
)
def test_anything_but_an_offered_allow_is_a_rejection(response):
    prompt = bash_prompt()
    question = question_for(prompt, _bash_view(prompt))
    assert question is not None
    assert decision_for(prompt, question, response).behavior == "deny"


def test_no_always_without_a_rule_to_save():
    prompt = bash_prompt(suggestions=())
    question = question_for(prompt, _bash_view(prompt))
    assert question is not None
    assert [o.kind for o in question.options] == ["allow_once", "reject_once"]
    assert decision_for(prompt, question, chosen("allow_always")).behavior == "deny"
    assert not decision_for(prompt, question, chosen("reject_always")).updates


def test_questions_are_not_asked_of_a_client_that_cannot_show_them():

    asks = QuestionsRequest((Question("Which?", "Pick", (QuestionOption("a", "A"),)),))
    prompt = replace(bash_prompt(), interaction=asks)
    assert question_for(prompt, _bash_view(prompt)) is None


def test_stop_reasons():
    def ended(subtype, stop=None, is_error=False):
        return TurnEnded(stop, "", is_error, subtype, 1)

    assert stop_reason(ended("success", "end_turn"), False) == "end_turn"
    assert stop_reason(ended("success", "end_turn"), True) == "cancelled"
    assert stop_reason(ended("interrupted"), False) == "cancelled"
    assert stop_reason(ended("error_max_turns", is_error=True), False) == "max_turn_requests"
    assert stop_reason(ended("success", "max_tokens"), False) == "max_tokens"
    assert stop_reason(ended("success", "refusal"), False) == "refusal"
    assert stop_reason(ended("error_during_execution", is_error=True), False) is None


def test_prompt_text_keeps_links_and_embedded_context():
    blocks = [
        TextContentBlock(type="text", text="look at"),
        ResourceContentBlock(type="resource_link", name="a.py", uri="file:///src/a.py"),
        EmbeddedResourceContentBlock(
            type="resource",
            resource=TextResourceContents(uri="file:///src/b.py", text="print(1)"),
        ),
    ]
    assert prompt_text(blocks) == (
        'look at\n@/src/a.py\n<context ref="file:///src/b.py">\nprint(1)\n</context>'
    )


@pytest.mark.parametrize(
    ("text", "offset", "limit"),
    [
        ("alpha\nbeta\n", None, None),
        ("no final newline", None, None),
        ("", None, None),
        ("a\nb\nc\nd\n", 2, 2),
        ("a\nb\n", 9, None),
        ("x" * 5000 + "\nshort\n", None, None),
        ("crlf\r\nline\r\n", None, None),
    ],
)
async def test_a_buffer_reads_as_the_same_file_on_disk_reads(tmp_path: Path, text, offset, limit):
    path = tmp_path / "f.txt"
    path.write_bytes(text.encode())
    context = ToolContext(
        cwd=str(tmp_path), project_dir=str(tmp_path), working_dirs=(str(tmp_path),)
    )
    args = ReadInput(file_path=str(path), offset=offset, limit=limit)

    async def from_buffer(p: str) -> str:
        assert p == str(path)
        return text

    local = await ReadTool().call(args, context, None, {}, lambda p: None)  # type: ignore[arg-type]
    # The real Read, its file served by the client (the session's TextFiles), not a twin.
    served = replace(context, text_files=ClientFiles(from_buffer, None))
    remote = await ReadTool().call(args, served, None, {}, lambda p: None)  # type: ignore[arg-type]
    assert remote.data == local.data


async def test_client_edits_need_a_read_of_the_buffer_as_it_is_now(tmp_path: Path):
    from tools.base import ToolError
    from tools.edit import EditInput, EditTool
    from tools.files.readstate import CHANGED, NOT_READ

    path = tmp_path / "f.txt"
    path.write_text("one\n")
    buffers = {str(path): "one\ntwo\n"}
    written: list[str] = []

    async def read(p: str) -> str:
        return buffers[p]

    async def write(p: str, text: str) -> None:
        written.append(text)
        buffers[p] = text

    files = ClientFiles(read, write)
    context = ToolContext(
        cwd=str(tmp_path),
        project_dir=str(tmp_path),
        working_dirs=(str(tmp_path),),
        text_files=files,
    )
    edit = EditInput(file_path=str(path), old_string="two", new_string="2")
    noop = lambda p: None  # noqa: E731

    with pytest.raises(ToolError, match=NOT_READ):
        await EditTool().call(edit, context, None, {}, noop)  # type: ignore[arg-type]
    await ReadTool().call(ReadInput(file_path=str(path)), context, None, {}, noop)  # type: ignore[arg-type]
    buffers[str(path)] = "one\ntwo\nthree\n"  # the user typed in the editor since
    with pytest.raises(ToolError, match=CHANGED[:20]):
        await EditTool().call(edit, context, None, {}, noop)  # type: ignore[arg-type]
    await ReadTool().call(ReadInput(file_path=str(path)), context, None, {}, noop)  # type: ignore[arg-type]
    result = await EditTool().call(edit, context, None, {}, noop)  # type: ignore[arg-type]
    assert written == ["one\n2\nthree\n"] and result.data.kind == "update"
    assert path.read_text() == "one\n"  # the editor writes its file, not lathe
    # Lathe's own write counts as read: a second edit needs no new Read.
    again = EditInput(file_path=str(path), old_string="three", new_string="3")
    await EditTool().call(again, context, None, {}, noop)  # type: ignore[arg-type]
    assert written[-1] == "one\n2\n3\n"


def test_replay_shows_what_the_live_session_showed():
    from app.acp.updates import replay
    from app.engine.compact_prompt import SUMMARY_INTRO
    from app.engine.replay import replay_events

    messages = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "<system-reminder>x</system-reminder>"}],
        },
        {"role": "user", "content": [{"type": "text", "text": SUMMARY_INTRO + "we did things"}]},
        {"role": "user", "content": "run it"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "s"},
                {"type": "text", "text": "Running."},
                {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "false"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "b1",
                    "content": "Exit code 1",
                    "is_error": True,
                }
            ],
        },
    ]
    # The session's history (app.engine.replay) is what session/load replays.
    out = replay(replay_events(messages, [BashTool()]))
    assert [x.session_update for x in out] == [
        "agent_message_chunk",
        "user_message_chunk",
        "agent_thought_chunk",  # the thinking, as the live turn streamed it
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
    ]
    assert out[1].content.text == "run it" and out[2].content.text == "hmm"
    assert out[3].content.text == "Running."
    assert out[4].kind == "execute" and out[4].title == "Bash false"
    assert out[5].status == "failed" and out[5].content[0].content.text == "Exit code 1"


async def test_the_first_answer_wins_a_late_client_answer_changes_nothing():
    from app.acp.permission import answer

    async def allow(tool_call, options):
        return chosen("allow_once")

    question = bash_prompt()
    await answer(question, _bash_view(question), allow)
    assert question.resolver.value is not None and question.resolver.value.behavior == "allow"

    cancelled = bash_prompt()
    assert cancelled.abort()  # session/cancel got there first
    await answer(cancelled, _bash_view(cancelled), allow)
    assert cancelled.resolver.value is not None
    assert cancelled.resolver.value.reason.kind == "abort"


def test_wire_filter_answers_what_the_library_would_choke_on():
    from app.acp.wire import check_line

    assert check_line(b'{"jsonrpc":"2.0","id":1,"method":"initialize"}') is None
    for line, code in [
        (b"[1,2,3]", -32600),
        (b"[]", -32600),
        (b'"str"', -32600),
        (b"5", -32600),
        (b"null", -32600),
        (b"{not json", -32700),
        (b'{"a":"\xff"}', -32700),  # not UTF-8
    ]:
        error = check_line(line)
        assert error is not None and error["error"]["code"] == code, line
        assert error["id"] is None and error["jsonrpc"] == "2.0"
    # JSON-RPC 2.0's shape: a response needs result or error, a request a method, and the
    # version must be "2.0"; the answer names the id when there is one.
    assert check_line(b'{"jsonrpc":"2.0","id":7,"result":{}}') is None
    assert check_line(b'{"jsonrpc":"2.0","method":"session/cancel","params":{}}') is None
    for line, ident in [
        (b'{"jsonrpc":"2.0","id":5}', 5),
        (b'{"jsonrpc":"1.0","id":"x","method":"initialize"}', "x"),
        (b'{"id":3,"method":"initialize"}', 3),
        (b'{"jsonrpc":"2.0","id":true,"method":5}', None),
    ]:
        error = check_line(line)
        assert error is not None and error["error"]["code"] == -32600, line
        assert error["id"] == ident, line


def test_prompt_text_replaces_lone_surrogates():
    from app.acp.session import prompt_text
    from app.engine.session import encodable

    text = prompt_text([TextContentBlock(type="text", text="a\ud800b\udfffc 😀")])
    assert text == "a\ufffdb\ufffdc 😀"
    text.encode("utf-8")  # sendable and writable
    assert encodable("x\udcffy") == "x\ufffdy"  # argv's surrogate escape of a stray byte


def test_prompt_parts_images_blobs_and_refusals():
    from acp import embedded_blob_resource, image_block, resource_block

    from app.acp.prompt import PromptError, prompt_parts

    png = "iVBORw0KGgo="
    text, blocks = prompt_parts(
        [
            TextContentBlock(type="text", text="look"),
            image_block(png, "image/png"),
            image_block("", "image/png", uri="https://example.com/a.png"),
            resource_block(embedded_blob_resource("file:///a.webp", png, mime_type="image/webp")),
        ]
    )
    assert text == "look"
    assert blocks == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/webp", "data": png}},
    ]
    for bad, words in (
        (image_block(png, "image/tiff"), "image/tiff"),
        (image_block("not base64!", "image/png"), "not base64"),
        (image_block("", "image/png", uri="file:///a.png"), "no image data"),
    ):
        with pytest.raises(PromptError, match=words):
            prompt_parts([bad])


async def test_a_failed_permission_request_is_logged_and_denied(tmp_path, monkeypatch):
    """The client errored (or went away): the call is denied, fail closed, and the log says so."""
    from app.acp.permission import answer

    log = tmp_path / "lathe.log"
    monkeypatch.setenv("LATHE_LOG", str(log))

    async def broken(tool_call, options):
        raise ConnectionError("client went away")

    question = bash_prompt()
    await answer(question, _bash_view(question), broken)
    assert question.resolver.value is not None
    assert question.resolver.value.behavior == "deny"
    text = log.read_text()
    assert "request_permission failed" in text and "client went away" in text
