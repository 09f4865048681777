"""Which non-zero exits of a command's `!` line are answers, not failures, as Claude Code 2.1.332
reads them (its Bash command semantics, ext-r5 F2 measured): `grep`/`rg` exit 1 is "no match",
`diff` 1 "files differ", `test`/`[` 1 "false", `find` 1 "some folders unreadable"; 2 and above
(and any other command's non-zero exit) is a failure. The command judged is the first word of
the last part of the line (`echo hi | grep zzz` is grep's), as Claude Code's heuristic takes it."""

from __future__ import annotations

import re

_ANSWERS_ON_ONE = frozenset({"grep", "rg", "diff", "test", "[", "find"})
# Pipes, lists and sequences; a heuristic, as Claude Code's is (quotes are not parsed).
_SEPARATORS = re.compile(r"\|\||&&|[|;&\n]")


def exit_is_an_answer(command: str, exit_code: int | None) -> bool:
    if exit_code != 1:
        return False
    parts = [p.strip() for p in _SEPARATORS.split(command) if p.strip()]
    last = parts[-1] if parts else command.strip()
    words = last.split()
    return bool(words) and words[0] in _ANSWERS_ON_ONE
