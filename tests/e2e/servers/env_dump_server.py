"""An MCP stdio server that writes the environment it was started with to a JSON file (argv[1]),
then serves one tool. For the test that lathe's credentials never reach MCP servers."""

from __future__ import annotations

import json
import os
import sys

from mcp.server.mcpserver import MCPServer

with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump(dict(os.environ), out)

server = MCPServer("envdump")


@server.tool(description="Says hi.")
def hi() -> str:
    return "hi"


if __name__ == "__main__":
    server.run()
