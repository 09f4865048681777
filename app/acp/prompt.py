"""An ACP prompt's content blocks as the engine's prompt: its text, and the Messages API blocks
that go with it.

Text is the prompt as is; a linked file (`resource_link`) is an @-mention, so the file is read
as a typed `@path` is; an embedded resource's text is context with its address. An image (lathe
declares `promptCapabilities.image`), or an embedded resource holding one as a blob, becomes an
Anthropic image block (base64, or the URL of an image given by address alone). What the API
cannot take (another image type, one over its size limit, audio) is refused with a message
naming it: the client learns at once, rather than the model seeing less than was sent.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from typing import Any

from acp.schema import TextContentBlock

# What the Messages API takes as an image, and its limit per image (5 MB, decoded).
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MAX_IMAGE_BYTES = 5 * 1024 * 1024
_SURROGATE = re.compile("[\ud800-\udfff]")


class PromptError(ValueError):
    """A prompt block lathe cannot pass to the model; the message names it."""


def _image(data: str | None, mime: str | None, uri: str | None, what: str) -> dict[str, Any]:
    if not data:
        if uri and uri.startswith(("http://", "https://")):
            return {"type": "image", "source": {"type": "url", "url": uri}}
        raise PromptError(f"{what}: no image data")
    if mime not in IMAGE_TYPES:
        raise PromptError(f"{what}: {mime!r} is not an image type the model takes")
    try:
        size = len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        raise PromptError(f"{what}: the image data is not base64") from None
    if size > MAX_IMAGE_BYTES:
        raise PromptError(f"{what}: {size} bytes, over the model's {MAX_IMAGE_BYTES}-byte limit")
    return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}


def prompt_parts(blocks: Sequence[Any]) -> tuple[str, list[dict[str, Any]]]:
    """The prompt's text and the image blocks sent with it, in order."""
    parts: list[str] = []
    attachments: list[dict[str, Any]] = []
    for number, block in enumerate(blocks, 1):
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
            continue
        kind = getattr(block, "type", "")
        if kind == "resource_link":
            uri = str(getattr(block, "uri", ""))
            parts.append("@" + uri.removeprefix("file://"))
        elif kind == "resource":
            resource = getattr(block, "resource", None)
            body = getattr(resource, "text", None)
            uri = str(getattr(resource, "uri", ""))
            blob = getattr(resource, "blob", None)
            if isinstance(body, str):
                parts.append(f'<context ref="{uri}">\n{body}\n</context>')
            elif isinstance(blob, str):
                mime = getattr(resource, "mime_type", None)
                attachments.append(_image(blob, mime, None, f"prompt block {number} ({uri})"))
        elif kind == "image":
            attachments.append(
                _image(
                    getattr(block, "data", None),
                    getattr(block, "mime_type", None),
                    getattr(block, "uri", None),
                    f"prompt block {number} (image)",
                )
            )
        else:
            raise PromptError(f"prompt block {number}: lathe cannot pass {kind!r} content on")
    return clean_text("\n".join(parts)), attachments


def prompt_text(blocks: Sequence[Any]) -> str:
    return prompt_parts(blocks)[0]


def clean_text(text: str) -> str:
    """`text` with each lone surrogate (valid JSON as an escape, not encodable as UTF-8) made
    U+FFFD, so it can be sent to the API and written to the transcript."""
    return _SURROGATE.sub("\ufffd", text)
