"""A real MCP server for the tests, written with the SDK's MCPServer (FastMCP in mcp 1.x).

Usage: `demo_server.py stdio`, `demo_server.py http PORT`, `demo_server.py garbage` (prints
non-JSON lines on stdout before serving), `demo_server.py silent` (never answers anything).
"""

from __future__ import annotations

import sys
import time

# The broken modes act before the SDK's slow imports, so a short connect timeout in a busy test
# run still sees their behaviour rather than a slow start.
if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] in ("silent", "garbage"):
    if sys.argv[1] == "garbage":
        sys.stdout.write("this is not json\n{broken\n")
        sys.stdout.flush()
    time.sleep(3600)
    raise SystemExit(0)

import asyncio
import base64
import os
from pathlib import Path

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

# A 1x1 transparent PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

server = MCPServer("demo")


@server.tool(description="Echo the text back.", annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    return f"echo: {text}"


@server.tool(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


@server.tool(
    description="Write text to a file.", annotations=ToolAnnotations(destructive_hint=True)
)
def write_file(path: str, text: str) -> str:
    Path(path).write_text(text, encoding="utf-8")
    return f"wrote {len(text)} characters"


@server.tool(description="Always fails.")
def fail(message: str) -> str:
    raise ToolError(message)


@server.tool(description="Returns a tiny picture and a caption.", structured_output=False)
def picture() -> list[object]:
    return ["a picture:", Image(data=PNG, format="png")]


@server.tool(description="Kills the server in the middle of the call.")
def die() -> str:
    os._exit(3)


@server.tool(description="Never returns.")
async def hang() -> str:
    await asyncio.sleep(3600)
    return "unreachable"


@server.tool(description="Reports the environment variable DEMO_TOKEN.")
def token() -> str:
    return os.environ.get("DEMO_TOKEN", "<unset>")


@server.tool(
    name="pinned.tool with spaces",
    description="A tool the model always sees.",
    meta={"anthropic/alwaysLoad": True},
)
def pinned() -> str:
    return "pinned"


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "http":
        port = int(sys.argv[2])
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        server.run()


if __name__ == "__main__":
    main()
