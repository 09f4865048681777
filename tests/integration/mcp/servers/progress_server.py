"""A real MCP server (the SDK's MCPServer over stdio) whose one tool reports its progress with a
total, as a long job of known size does: `steps(count)` sends count notifications, k/count."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("progress")


@server.tool(description="Works through `count` steps, reporting each one.")
async def steps(count: int, ctx: Context) -> str:
    for done in range(1, count + 1):
        await ctx.report_progress(done, count, f"step {done} of {count}")
    return f"{count} steps done"


if __name__ == "__main__":
    server.run("stdio")
