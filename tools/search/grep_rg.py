"""Grep on ripgrep: the command line for a query and the parsing of its output into FileHits."""

from __future__ import annotations

import os

from tools.abort import AbortSignal
from tools.search.grep_model import MAX_COLUMNS, Entry, FileHits, GrepQuery
from tools.search.rg import BASE_FLAGS, RgOutput, glob_args, rg_failure, run_rg

# Field separators that cannot be confused with text: a unit separator, then rg's usual mark.
_MATCH_SEP = "\x1f:"
_CONTEXT_SEP = "\x1f-"


def build_args(query: GrepQuery) -> tuple[list[str], str, str]:
    """(arguments, working folder, path argument). A folder is searched as `./` from inside it,
    so that anchored globs (`src/**`) are relative to the search root, as in the fallback."""
    args = [*BASE_FLAGS, "--color=never", "--with-filename", f"--max-columns={MAX_COLUMNS}"]
    if query.ignore_case:
        args.append("--ignore-case")
    if query.multiline:
        args += ["--multiline", "--multiline-dotall"]
    if query.file_type:
        args += ["--type", query.file_type]
    args += glob_args(list(query.globs))
    if query.mode == "files_with_matches":
        args += ["--files-with-matches", "--null"]
    elif query.mode == "count":
        args += ["--count", "--null"]
    else:
        # Line numbers always: the formatter needs them for context separators.
        args += [
            "--line-number",
            "--no-heading",
            f"--field-match-separator={_MATCH_SEP}",
            f"--field-context-separator={_CONTEXT_SEP}",
        ]
        if query.before:
            args += ["--before-context", str(query.before)]
        if query.after:
            args += ["--after-context", str(query.after)]
    if os.path.isdir(query.root):
        return [*args, "--regexp", query.pattern, "--", "./"], query.root, "./"
    folder = os.path.dirname(query.root) or "/"
    return [*args, "--regexp", query.pattern, "--", query.root], folder, query.root


def _absolute(root: str, printed: str) -> str:
    if printed.startswith("./"):
        return os.path.join(root, printed[2:])
    return printed


def parse(query: GrepQuery, output: RgOutput) -> list[FileHits]:
    text = output.stdout.decode("utf-8", "replace")
    root = query.root if os.path.isdir(query.root) else os.path.dirname(query.root)
    if query.mode == "files_with_matches":
        return [FileHits(_absolute(root, p), 1) for p in text.split("\0") if p]
    if query.mode == "count":
        hits = []
        for line in text.splitlines():
            path, _, count = line.rpartition("\0")
            if path and count.isdigit():
                hits.append(FileHits(_absolute(root, path), int(count)))
        return hits
    by_path: dict[str, FileHits] = {}
    for line in text.split("\n"):
        if line == "--" or not line:
            continue
        match_at = line.find(_MATCH_SEP)
        context_at = line.find(_CONTEXT_SEP)
        at = (
            min(i for i in (match_at, context_at) if i >= 0)
            if max(match_at, context_at) >= 0
            else -1
        )
        if at < 0:
            continue
        sep = line[at : at + 2]
        path = line[:at]
        number, _, body = line[at + 2 :].partition(sep)
        if not number.isdigit():
            continue
        if body.endswith("\r"):
            body = body[:-1]
        hit = by_path.get(path)
        if hit is None:
            hit = by_path[path] = FileHits(_absolute(root, path))
        is_match = sep == _MATCH_SEP
        hit.entries.append(Entry(int(number), is_match, body))
        if is_match:
            hit.count += 1
    return list(by_path.values())


async def search(rg: str, query: GrepQuery, abort: AbortSignal) -> tuple[list[FileHits], bool]:
    args, cwd, _ = build_args(query)
    output = await run_rg(rg, args, cwd, abort)
    failure = rg_failure(output)
    if failure is not None:
        raise failure
    return parse(query, output), output.truncated
