"""The output budget: results larger than a tool's `max_result_size_chars` go to a file.

The model then gets the `<persisted-output>` preview with the path, and can Read the rest. Read
itself is exempt (its budget is infinite): persisting Read's output would only invite a Read of the
persisted file, and so on forever.
"""

from __future__ import annotations

import math
from typing import Any

from tools.persisted import make_preview, persist_text, persisted_message


def content_text_length(content: str | list[dict[str, Any]]) -> int:
    if isinstance(content, str):
        return len(content)
    return sum(len(b.get("text", "")) for b in content if b.get("type") == "text")


def apply_budget(
    block: dict[str, Any], limit: float, session_dir: str, tool_use_id: str
) -> tuple[dict[str, Any], str | None]:
    """Return the block to send (persisted and previewed when too large) and the file path if any.

    Only text is persisted; image blocks pass through untouched.
    """
    if math.isinf(limit) or not session_dir:
        return block, None
    content = block.get("content", "")
    total = content_text_length(content)
    if total <= limit:
        return block, None
    if isinstance(content, str):
        text = content
        others: list[dict[str, Any]] = []
    else:
        text = "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
        others = [b for b in content if b.get("type") != "text"]
    preview = make_preview(text)
    try:
        saved = persist_text(session_dir, tool_use_id, text)
    except OSError as exc:
        # The tool ran; only its output could not be kept (a full disk): the model is told so.
        message = (
            f"<persisted-output>Output too large ({total} characters) and it could not be "
            f"saved to a file ({exc.strerror or exc}); only this preview is left.\n\n"
            f"Preview (first 2KB):\n{preview}\n...</persisted-output>"
        )
        path = None
    else:
        message = persisted_message(total, saved.path, preview, saved.saved_chars)
        path = str(saved.path)
    new_block = dict(block)
    new_block["content"] = message if not others else [{"type": "text", "text": message}, *others]
    return new_block, path
