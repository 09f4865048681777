"""The exact texts the model is told (CONTRACT.md). Nothing else may spell them."""

from __future__ import annotations

REJECT_MESSAGE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait "
    "for the user to tell you how to proceed."
)
REJECT_WITH_FEEDBACK_PREFIX = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the "
    "user said:\n"
)
# A subagent's call the user denied (Claude Code 2.1.332's words): the subagent goes on.
SUBAGENT_REJECT_MESSAGE = (
    "Permission for this tool use was denied. The tool use was rejected (eg. if it was a file "
    "edit, the new_string was NOT written to the file). Try a different approach or report the "
    "limitation to complete your task."
)
INTERRUPTED_FOR_TOOL_USE = "[Request interrupted by user for tool use]"
INTERRUPTED = "[Request interrupted by user]"
STREAMING_FALLBACK = (
    "<tool_use_error>Error: Streaming fallback - tool execution discarded</tool_use_error>"
)


def tool_use_error(message: str) -> str:
    return f"<tool_use_error>{message}</tool_use_error>"


def no_such_tool(name: str) -> str:
    return tool_use_error(f"Error: No such tool available: {name}")


def sibling_cancelled(tool_use_id: str) -> str:
    return tool_use_error(f"Cancelled: parallel tool call {tool_use_id} errored")


def invalid_json(raw: str) -> str:
    import json

    return json.dumps({"INVALID_JSON": raw}, ensure_ascii=False)


def deferred_hint(name: str) -> str:
    return (
        f"\n\nThe schema of {name} was not sent to you: it is a deferred tool. Load it first with "
        f'ToolSearch (query "select:{name}"), then call it again with the schema it returns.'
    )


def empty_result(name: str) -> str:
    return f"({name} completed with no output)"
