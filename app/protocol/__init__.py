"""The Claude Agent SDK's protocol: lathe as the `claude` process an SDK program drives.

flags (the command line the SDK builds), reader (stdin lines), wire (the stdout line shapes),
printer (engine events to lines, result lines), control (lathe's own requests to the SDK),
handlers (the SDK's requests to lathe), prompter (can_use_tool), hooks (SDK hook callbacks),
sdk_mcp (SDK MCP servers), options (the flags as engine options), agents (agent types a program
defines), run (the loop, on app.engine.api and app.compose). What the SDK asks beyond turns (MCP
servers one by one, usage per model, agent types, hook callbacks) is the port's `controls`.
"""
