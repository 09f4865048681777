"""The rules "always allow" would add for a call, in rule syntax."""

from __future__ import annotations

import os
import re

from app.permissions.matching import canonical
from tools.shell.parse import SimpleCommand

# Tools whose second and third words name what runs (`npm run test`, `git diff`).
_SUBCOMMAND_TOOLS = frozenset(
    {
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "npx",
        "git",
        "cargo",
        "go",
        "uv",
        "pip",
        "pip3",
        "make",
        "docker",
        "kubectl",
        "poetry",
        "dotnet",
        "gradle",
        "mvn",
        "bundle",
        "rake",
        "rails",
        "composer",
        "deno",
        "just",
        "tox",
        "nox",
        "hatch",
        "pdm",
        "gh",
        "terraform",
        "helm",
    }
)
# Commands for which a prefix rule would approve far too much: suggest the exact command.
_EXACT_ONLY = frozenset(
    {
        "rm",
        "sudo",
        "doas",
        "su",
        "dd",
        "chmod",
        "chown",
        "chgrp",
        "mkfs",
        "curl",
        "wget",
        "ssh",
        "scp",
        "rsync",
        "kill",
        "pkill",
        "killall",
        "shutdown",
        "reboot",
        "mv",
        "cp",
        "ln",
        "env",
        "xargs",
        "find",
        "eval",
        "exec",
        "source",
        ".",
        "sh",
        "bash",
        "zsh",
        "python",
        "python3",
        "node",
        "perl",
        "ruby",
        "php",
        "awk",
        "sed",
        "tee",
        "truncate",
        "shred",
        "crontab",
        "nc",
    }
)
_PLAIN_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_:.@+-]*$")


def runtime_words(part: SimpleCommand) -> bool:
    """Whether a word of `part` is only known at run time (a substitution, an expansion)."""
    return part.has_substitution or part.dynamic_assignment or bool(part.dynamic)


def bash_suggestion(words: tuple[str, ...], exact_only: bool, runtime: bool = False) -> str:
    """The rule for one part. `runtime`: a word of it is only known at run time; it cannot be
    written into an exact rule (re-quoted it names another command: `echo '$(date)'`), so no
    exact rule is suggested, as Claude Code suggests none for a command with a substitution; a
    prefix rule still is."""
    if not words:
        return ""
    name = words[0]
    if exact_only or name in _EXACT_ONLY or not _PLAIN_WORD.match(name):
        return "" if runtime else f"Bash({canonical(words)})"
    prefix = [name]
    if name in _SUBCOMMAND_TOOLS:
        for w in words[1:3]:
            if not _PLAIN_WORD.match(w) or w.startswith("-") or "/" in w:
                break
            prefix.append(w)
    if len(prefix) == len(words):
        if name in _SUBCOMMAND_TOOLS:
            return f"Bash({' '.join(prefix)}:*)"
        return "" if runtime else f"Bash({canonical(words)})"
    return f"Bash({' '.join(prefix)}:*)"


def path_suggestion(tool_family: str, path: str, project_dir: str) -> str:
    """`Edit(./src/**)` for a file inside the project, `Read(//abs/dir/**)` outside it."""
    folder = os.path.dirname(path) or "/"
    if folder == project_dir or folder.startswith(project_dir.rstrip("/") + "/"):
        rel = os.path.relpath(folder, project_dir)
        return f"{tool_family}(./**)" if rel == "." else f"{tool_family}(./{rel}/**)"
    return f"{tool_family}(/{folder}/**)" if folder != "/" else f"{tool_family}(//**)"


def dedupe(items: list[str], limit: int = 5) -> tuple[str, ...]:
    out: list[str] = []
    for item in items:
        if item and item not in out:
            out.append(item)
    return tuple(out[:limit])
