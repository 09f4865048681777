"""Accumulating one streamed assistant message from the SDK's raw events.

The raw event stream is used instead of the SDK's high-level MessageStream because it costs a
third as much per delta, and the loop only needs three things from it: text as it comes, each
tool_use block the moment its `content_block_stop` arrives, and the final message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from app import jsonlimits


@dataclass
class CompletedToolUse:
    """A tool_use block whose input finished streaming. `invalid_raw` is set when its JSON did not
    parse: the block then carries `{}` and the executor answers it with the INVALID_JSON result."""

    block: dict[str, Any]
    invalid_raw: str | None = None


@dataclass
class StreamUpdate:
    text: list[tuple[int, str]] = field(default_factory=list)
    thinking: list[tuple[int, str]] = field(default_factory=list)
    redacted: list[int] = field(default_factory=list)  # redacted_thinking blocks that started
    tools: list[CompletedToolUse] = field(default_factory=list)


def _dump(obj: Any) -> dict[str, Any]:
    if isinstance(obj, dict):
        return dict(obj)
    dumped: dict[str, Any] = obj.model_dump(mode="json", exclude_none=True)
    return dumped


class StreamAccumulator:
    def __init__(self) -> None:
        self.message_id = ""
        self.model = ""
        self.blocks: dict[int, dict[str, Any]] = {}
        self.done: set[int] = set()
        self._text: dict[int, list[str]] = {}
        self._json: dict[int, list[str]] = {}
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        self.usage: dict[str, int] = {}
        self.started = False
        self.finished = False

    def feed(self, event: Any) -> StreamUpdate | None:
        kind = event.type
        if kind == "content_block_delta":
            delta = event.delta
            dtype = delta.type
            index = event.index
            if dtype == "text_delta":
                self._text.setdefault(index, []).append(delta.text)
                return StreamUpdate(text=[(index, delta.text)])
            if dtype == "input_json_delta":
                self._json.setdefault(index, []).append(delta.partial_json)
                return None
            if dtype == "thinking_delta":
                self._text.setdefault(index, []).append(delta.thinking)
                return StreamUpdate(thinking=[(index, delta.thinking)])
            if dtype == "signature_delta":
                block = self.blocks.get(index)
                if block is not None:
                    block["signature"] = block.get("signature", "") + delta.signature
                return None
            if dtype == "citations_delta":
                block = self.blocks.get(index)
                if block is not None:
                    block.setdefault("citations", []).append(_dump(delta.citation))
                return None
            return None
        if kind == "content_block_start":
            block = _dump(event.content_block)
            if block.get("type") == "tool_use":
                block["input"] = {}
            if block.get("type") in ("text", "thinking"):
                field_name = "text" if block["type"] == "text" else "thinking"
                initial = block.get(field_name, "")
                self._text[event.index] = [initial] if initial else []
            self.blocks[event.index] = block
            if block.get("type") == "redacted_thinking":
                return StreamUpdate(redacted=[event.index])
            return None
        if kind == "content_block_stop":
            return self._stop_block(event.index)
        if kind == "message_start":
            self.started = True
            message = event.message
            self.message_id = message.id
            self.model = message.model
            self.usage.update(_usage(message.usage))
            return None
        if kind == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self.stop_sequence = getattr(event.delta, "stop_sequence", None)
            if event.usage is not None:
                self.usage.update({k: v for k, v in _usage(event.usage).items() if v})
            return None
        if kind == "message_stop":
            self.finished = True
        return None

    def _stop_block(self, index: int) -> StreamUpdate | None:
        block = self.blocks.get(index)
        if block is None:
            return None
        self.done.add(index)
        btype = block.get("type")
        if btype == "text":
            block["text"] = "".join(self._text.pop(index, []))
        elif btype == "thinking":
            block["thinking"] = "".join(self._text.pop(index, []))
        elif btype in ("tool_use", "server_tool_use"):
            raw = "".join(self._json.pop(index, []))
            invalid: str | None = None
            if raw.strip():
                try:
                    value = jsonlimits.loads(raw, "tool input")  # a depth limit, no crash
                except json.JSONDecodeError:
                    value, invalid = {}, raw
                if not isinstance(value, dict):
                    value, invalid = {}, raw
                block["input"] = value
            if btype == "tool_use":
                return StreamUpdate(tools=[CompletedToolUse(block, invalid)])
        return None

    def content(self, *, partial: bool = False) -> list[dict[str, Any]]:
        """The message content. With `partial`, what a cut stream leaves that the API accepts:
        finished blocks, plus the text streamed so far of an unfinished text block."""
        out: list[dict[str, Any]] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            if index not in self.done:
                if not partial or block.get("type") != "text":
                    continue
                text = "".join(self._text.get(index, []))
                block = {**block, "text": text}
            if block.get("type") == "text" and not block.get("text"):
                continue  # the API refuses empty text blocks
            if block.get("type") == "thinking" and not block.get("signature"):
                continue
            out.append(block)
        return out

    def message(self, *, partial: bool = False) -> dict[str, Any]:
        """The assistant message in the Messages API's shape (requests keep only role and content)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content(partial=partial)}
        if self.message_id:
            message.update(
                id=self.message_id,
                type="message",
                model=self.model,
                stop_reason=self.stop_reason,
                stop_sequence=self.stop_sequence,
                usage=dict(self.usage),
            )
        return message


def _usage(usage: Any) -> dict[str, int]:
    if usage is None:
        return {}
    out: dict[str, int] = {}
    for key in (
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    ):
        value = getattr(usage, key, None)
        if isinstance(value, int):
            out[key] = value
    return out
