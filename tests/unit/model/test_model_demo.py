"""The built-in demo tour, driven through the real SDK on a real folder.

The test plays the executor's part for Write and Edit (doing what those tools do) so that the
scripted inputs are checked against the real files they name.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from app.model.demo import DemoSource, pick_files
from app.model.scripted import ScriptedTransport, make_scripted_client


def make_repo(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "README.md").write_text("# Project\nhello\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "main.py").write_text("def main():\n    pass  # TODO\n")
    (root / "big.bin").write_bytes(b"\0" * 300_000)
    subprocess.run(["git", "-C", str(root), "add", "."], check=True)


async def step(client: Any, messages: list[dict[str, Any]]) -> Any:
    async with client.messages.stream(model="demo", max_tokens=100, messages=messages) as s:
        message = await s.get_final_message()
    messages.append(
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]}
    )
    return message


def run_tools(message: Any, deny: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
    results = []
    for block in message.content:
        if block.type != "tool_use":
            continue
        inp = block.input
        error = block.name in deny
        if not error and block.name == "Write":
            Path(inp["file_path"]).write_text(inp["content"])
        if not error and block.name == "Edit":
            path = Path(inp["file_path"])
            text = path.read_text()
            assert inp["old_string"] in text
            path.write_text(text.replace(inp["old_string"], inp["new_string"]))
        if block.name == "Read":
            assert Path(inp["file_path"]).is_file()
        results.append(
            {
                "type": "tool_result",
                "tool_use_id": block.id,
                "content": "denied" if error else "ok",
                "is_error": error,
            }
        )
    return {"role": "user", "content": results}


async def test_demo_tour(tmp_path: Path) -> None:
    make_repo(tmp_path)
    transport = ScriptedTransport(DemoSource(tmp_path, delay=0))
    client = make_scripted_client(transport)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "show me"}]
    names: list[list[str]] = []
    texts: list[str] = []
    for _ in range(5):
        message = await step(client, messages)
        names.append([b.name for b in message.content if b.type == "tool_use"])
        texts.append("".join(b.text for b in message.content if b.type == "text"))
        if message.stop_reason != "tool_use":
            break
        messages.append(run_tools(message))
    assert names[0][:2] == ["Glob", "Grep"] and names[0].count("Read") == 2
    assert names[1:] == [["Bash"], ["Write"], ["Edit"], []]
    assert "offline demo" in texts[0] and "offline demo" in texts[-1]
    assert (tmp_path / ".lathe-demo.txt").read_text().startswith("This scratch file")
    assert "edited by the demo" in (tmp_path / ".lathe-demo.txt").read_text()
    # a new prompt starts the tour again, on a fresh scratch name
    messages.append({"role": "user", "content": "again"})
    again = await step(client, messages)
    assert next(b.name for b in again.content if b.type == "tool_use") == "Glob"


async def test_denied_write_skips_edit(tmp_path: Path) -> None:
    make_repo(tmp_path)
    client = make_scripted_client(DemoSource(tmp_path, delay=0))
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for _ in range(2):
        messages.append(run_tools(await step(client, messages)))
    write = await step(client, messages)
    messages.append(run_tools(write, deny={"Write"}))
    summary = await step(client, messages)
    assert summary.stop_reason == "end_turn"
    assert "not all approved" in summary.content[0].text
    assert not (tmp_path / ".lathe-demo.txt").exists()


def test_scratch_name_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / ".lathe-demo.txt").write_text("mine")
    source = DemoSource(tmp_path)
    turn = source.next_turn(
        {
            "messages": [
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "[Request interrupted by user]"}],
                },
                {"role": "assistant", "content": [{"type": "text", "text": "b"}]},
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "[Request interrupted by user]"}],
                },
            ]
        }
    )
    write = next(b for b in turn.blocks if b.type == "tool_use")
    assert write.input is not None and write.input["file_path"].endswith(".lathe-demo-2.txt")


def test_pick_files_in_plain_and_empty_folders(tmp_path: Path) -> None:
    assert pick_files(tmp_path) == []
    (tmp_path / "notes.md").write_text("x")
    (tmp_path / "empty.py").write_text("")
    assert pick_files(tmp_path) == ["notes.md"]
    turn = DemoSource(tmp_path).next_turn({"messages": [{"role": "user", "content": "hi"}]})
    assert [b.name for b in turn.blocks if b.type == "tool_use"] == ["Glob", "Grep", "Read"]
