"""A long scripted session: many model turns, large tool outputs, chatty assistant text.

Used by the long-session tests and by `python -m bench context`. The tool outputs (Read, Bash,
Grep, Glob of big files) are what clearing old results saves; the assistant text is what only a
compaction can shrink.
"""

from __future__ import annotations

from pathlib import Path

from app.model.scenario import Turn, text_block, text_turn, tool_use_block, turn_of

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
]


def make_files(project: Path, count: int, lines: int) -> list[str]:
    """`count` text files of `lines` lines (about 60 characters each) in `project`."""
    names = []
    for n in range(count):
        name = f"module_{n:02d}.py"
        body = "\n".join(
            f"def f_{n}_{i}(x):  # {WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]} {i:05d}"
            for i in range(lines)
        )
        (project / name).write_text(body + "\n")
        names.append(name)
    return names


def long_turns(count: int, files: list[str], text_chars: int = 1200) -> list[Turn]:
    """`count` model turns, each with text and one tool call, then a last text turn."""
    turns: list[Turn] = [
        turn_of(
            [
                text_block("Planning the work."),
                tool_use_block(
                    "TodoWrite",
                    {
                        "todos": [
                            {
                                "content": "Review every module",
                                "status": "in_progress",
                                "activeForm": "Reviewing every module",
                            },
                            {
                                "content": "Write the report",
                                "status": "pending",
                                "activeForm": "Writing the report",
                            },
                        ]
                    },
                ),
            ]
        )
    ]
    for i in range(1, count - 1):
        name = files[i % len(files)]
        kind = i % 4
        if kind == 0:
            call = tool_use_block("Read", {"file_path": name})
        elif kind == 1:
            call = tool_use_block("Bash", {"command": f"cat {name}", "description": "show"})
        elif kind == 2:
            call = tool_use_block(
                "Grep", {"pattern": WORDS[i % len(WORDS)], "output_mode": "content"}
            )
        else:
            call = tool_use_block("Glob", {"pattern": "*.py"})
        note = f"Step {i}: looking at {name}. " + " ".join(
            WORDS[(i + k) % len(WORDS)] for k in range(text_chars // 6)
        )
        turns.append(turn_of([text_block(note[:text_chars], 400), call]))
    turns.append(text_turn("All modules reviewed; the report is done."))
    return turns
