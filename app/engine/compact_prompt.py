"""The texts of a compaction: what the model is asked for, and how its summary is handed back."""

from __future__ import annotations

import re

SUMMARY_PROMPT = """Your task is to create a detailed summary of the conversation so far. It will \
replace the conversation: after it you will have only this summary (plus the todo list, the files \
you recently read, re-read from disk, and the memory files), so it must carry everything needed to \
go on with the work without losing context. Do not call any tool: answer with text only.

First think it through inside <analysis> tags, going over the conversation in order. Then write \
the summary inside <summary> tags with these sections:

1. Primary Request and Intent: every explicit request of the user, and what they want in the end.
2. Key Technical Concepts and Decisions: technologies, conventions and the decisions taken (and why).
3. Files and Code Sections: each file read, changed or created, why it matters, and the important \
code (whole snippets where a change was made).
4. Errors and Fixes: every error met and how it was fixed; what the user said about it.
5. All User Messages: every message of the user that is not a tool result, briefly.
6. Pending Tasks: what was asked for and is not done.
7. Current Work: precisely what was being worked on just before this summary, with file names and \
code.
8. Next Step: the next step, directly in line with the user's latest request; quote the latest \
request word for word so the task cannot drift. If the last task was finished, say so and name no \
next step the user did not ask for."""

SUMMARY_INTRO = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation; the full history stays "
    "in the transcript on disk.\n\n"
)
CONTINUE_TEXT = (
    "Continue the conversation from where it left off without asking the user any further "
    "questions. Continue with the last task that you were asked to work on."
)
DROPPED_HEAD = "[The oldest part of the conversation was left out to fit the summary request.]"

_SUMMARY = re.compile(r"<summary>(.*?)(?:</summary>|$)", re.S)
_ANALYSIS = re.compile(r"<analysis>.*?(?:</analysis>|$)", re.S)


def summary_prompt(instructions: str) -> str:
    if not instructions.strip():
        return SUMMARY_PROMPT
    return f"{SUMMARY_PROMPT}\n\nAdditional instructions for this summary:\n{instructions.strip()}"


def extract_summary(text: str) -> str:
    """The `<summary>` part of the model's answer (its analysis is scratch work); the whole
    answer without the analysis when it used no tags."""
    match = _SUMMARY.search(text)
    if match:
        return match.group(1).strip()
    return _ANALYSIS.sub("", text).strip()
