"""The `---` frontmatter of command, rule and memory files: the small YAML subset they use.

Supported: `key: value` (quotes stripped; `[a, b]` stays text until read as a list, since
`argument-hint: [file] [mode]` is text), `key:` followed by `- item` lines, and `key:` followed
by indented `sub: value` lines or `- sub: value` items (a nested mapping or a list of mappings,
skipped: no caller reads one). A UTF-8 BOM before the opening `---` is ignored.
Anything else between the fences is an error the caller reports as a notice; no PyYAML, because
these files only ever use flat keys and lists.
"""

from __future__ import annotations

import re

FrontValue = str | list[str]

_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")


class FrontmatterError(ValueError):
    pass


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _inline_list(text: str) -> list[str]:
    inner = text.strip()[1:-1]
    return [_scalar(part) for part in inner.split(",") if part.strip()]


def split_frontmatter(
    text: str, unclosed_is_body: bool = False
) -> tuple[dict[str, FrontValue], str]:
    """(fields, body). A file without an opening `---` line has no frontmatter.
    `unclosed_is_body`: a `---` never closed opens no frontmatter, the whole file is the body
    (Claude Code 2.1.332 for commands and skills, measured in ext-r3 F3); else it is an error."""
    # A UTF-8 BOM before `---` (editors on Windows write one): Claude Code reads the frontmatter,
    # and dropping it would lose a `disable-model-invocation` or turn a `paths:` rule global.
    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if _closes(lines[i])), None)
    if end is None and unclosed_is_body:
        return {}, text
    if end is None:
        raise FrontmatterError("the frontmatter opened with --- is never closed")
    fields: dict[str, FrontValue] = {}
    nested: set[str] = set()
    key: str | None = None
    for number, raw in enumerate(lines[1:end], start=2):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        stripped = line.strip()
        if key in nested and line[0].isspace():
            continue  # deeper inside a nested mapping
        if stripped.startswith("- ") or stripped == "-":
            if key in nested:
                continue  # the next item of a list of mappings
            current = fields.get(key) if key else None
            if key is None or not isinstance(current, list):
                raise FrontmatterError(f"line {number}: a list item outside a list: {stripped!r}")
            if _KEY.match(stripped[1:].strip()):
                # A list of mappings (`arguments:` then `- name: x` / `  description: y`): no
                # flat key reads one, so it is kept out of the fields, as a nested mapping is.
                nested.add(key)
                fields.pop(key, None)
                continue
            current.append(_scalar(stripped[1:]))
            continue
        if line[0].isspace() and key is not None and fields.get(key) == [] and _KEY.match(stripped):
            # A nested mapping (a skill's `metadata:`): no flat key reads it, so it is kept out
            # of the fields rather than refused.
            nested.add(key)
            fields.pop(key, None)
            continue
        if line[0].isspace() and key is not None and isinstance(fields.get(key), str):
            fields[key] = f"{fields[key]} {stripped}".strip()  # a folded continuation line
            continue
        match = _KEY.match(line)
        if match is None:
            raise FrontmatterError(f"line {number}: expected `key: value`, got {stripped!r}")
        key, value = match.group(1), match.group(2).strip()
        if value == "":
            fields[key] = []
        elif value in {"|", ">", "|-", ">-"}:
            fields[key] = ""
        else:
            fields[key] = _scalar(value)
    body = "\n".join(lines[end + 1 :])
    if lines[end].strip() != "---":
        # A longer closer (`----------`, `------ words`, `--- # comment`): Claude Code closes
        # at its first three dashes and the rest of the line starts the body (2.1.332
        # measured, ext-r3 F13 and ext-r4 F10: `/dash2` sends `# comment\nBODY`).
        body = lines[end].rstrip()[3:].lstrip(" \t") + "\n" + body
    return fields, body


def _closes(line: str) -> bool:
    """A line starting with `---`: `---`, more dashes (awesome-claude-agents closes with 56 of
    them), or dashes and more text (`--- # end`), as Claude Code 2.1.332 closes them."""
    return line.startswith("---")


def as_list(value: FrontValue | None) -> list[str]:
    """A list field, also written as one comma- or space-separated string (`allowed-tools`)."""
    if value is None:
        return []
    if isinstance(value, list):
        return [v for v in value if v]
    if value.startswith("[") and value.endswith("]"):
        return _inline_list(value)  # a YAML flow list; kept as text until read as a list
    return [part.strip() for part in _split_top_level(value) if part.strip()]


def _split_top_level(text: str) -> list[str]:
    """Split on commas outside parentheses: `Bash(git add:*), Read` is two entries."""
    parts: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += ch
    parts.append(current)
    return parts


def as_text(value: FrontValue | None) -> str:
    if value is None:
        return ""
    return " ".join(value) if isinstance(value, list) else value
