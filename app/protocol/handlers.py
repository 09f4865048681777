"""Control requests the SDK sends to lathe, answered as Claude Code 2.1.332 answers them.

Shapes recorded from Claude Code (CHANGELOG.md): `set_permission_mode` answers `{"mode": M}`,
`set_model` `{"model": M}`, `interrupt` `{"still_queued": []}`, `mcp_status` `{"mcpServers":
[...]}`; an unknown server is the error `Server not found: NAME`, `rewind_files` without file
checkpointing `File rewinding is not enabled.`, and an unknown subtype `Unsupported control
request subtype: S` with `error_code: unsupported_request`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from app.protocol.agents import agent_list
from app.protocol.flags import BYPASS_REFUSED, MODE_ALIASES

if TYPE_CHECKING:
    from app.protocol.run import ProtocolSession


class RequestFailed(Exception):
    """Answered as a control error response with this message (and optional error_code)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


Handler = Callable[["ProtocolSession", Mapping[str, Any]], Any]


async def initialize(ps: ProtocolSession, req: Mapping[str, Any]) -> dict[str, Any]:
    count = ps.install_hooks(req.get("hooks"))
    ps.define_agents(req.get("agents"))
    session = ps.session
    return {
        "commands": [
            {"name": name, "description": text, "argumentHint": ""}
            for name, text in ps.slash_commands().items()
        ],
        "agents": agent_list(session),
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": [{"value": session.model, "displayName": session.model, "description": ""}],
        "account": {"apiKeySource": ps.api_key_source(), "tokenSource": "none"},
        "pid": ps.pid,
        "claude_code_version": ps.protocol_version,
        "current_permission_mode": session.permission_mode,
        "hooks_applied": True,
        # Every SDK callback that fails or times out is a non-blocking error (on_failure
        # "continue"); "block" is not honoured, so say so and the SDK refuses such hooks itself.
        "hook_on_failure_supported": False,
        "registered_hook_callbacks": count,
        "session_state": "running" if session.running else "idle",
    }


async def interrupt(ps: ProtocolSession, req: Mapping[str, Any]) -> dict[str, Any]:
    ps.interrupt()
    return {"still_queued": []}


def checked_mode(ps: ProtocolSession, mode: str) -> str:
    """The mode the SDK may switch to: "auto" runs as default (never looser); bypassPermissions
    only in a session launched with (--allow-)--dangerously-skip-permissions or in bypass, as
    Claude Code. Shared by set_permission_mode and can_use_tool's setMode update."""
    mode = MODE_ALIASES.get(mode, mode)
    if mode == "bypassPermissions" and not ps.opts.sdk.allow_bypass:
        raise RequestFailed(BYPASS_REFUSED)
    return mode


async def set_permission_mode(ps: ProtocolSession, req: Mapping[str, Any]) -> dict[str, Any]:
    asked = str(req.get("mode"))
    mode = checked_mode(ps, asked)
    try:
        ps.session.set_permission_mode(mode)
    except ValueError as exc:
        raise RequestFailed(str(exc), "invalid_mode") from None
    now = ps.session.status().permission_mode
    if now != mode:
        # A managed policy kept the mode (disableBypassPermissionsMode): say so, never "done".
        raise RequestFailed(f"Cannot set permission mode to {mode}: a policy keeps it at {now}")
    ps.status_changed()
    return {"mode": mode}


async def set_model(ps: ProtocolSession, req: Mapping[str, Any]) -> dict[str, Any]:
    model = req.get("model")
    if model is not None and not isinstance(model, str):
        raise RequestFailed("set_model: model must be a string")
    name = model if isinstance(model, str) and model and model != "default" else ps.default_model
    ps.session.set_model(name)
    return {"model": name}


async def mcp_status(ps: ProtocolSession, req: Mapping[str, Any]) -> dict[str, Any]:
    return {"mcpServers": ps.mcp_servers()}


def _server(ps: ProtocolSession, req: Mapping[str, Any]) -> str:
    name = req.get("serverName") or req.get("server_name")
    if not isinstance(name, str) or ps.session.controls.mcp_server(name) is None:
        raise RequestFailed(f"Server not found: {name}")
    return name


async def mcp_reconnect(ps: ProtocolSession, req: Mapping[str, Any]) -> dict[str, Any]:
    name = _server(ps, req)
    ps.disabled_servers.discard(name)
    info = await ps.session.controls.reconnect_mcp_server(name)
    if info.status != "connected":
        raise RequestFailed(f"Failed to reconnect to {name}: {info.error or info.status}")
    return {}


async def mcp_toggle(ps: ProtocolSession, req: Mapping[str, Any]) -> dict[str, Any]:
    name = _server(ps, req)
    if req.get("enabled", True):
        ps.disabled_servers.discard(name)
        info = await ps.session.controls.reconnect_mcp_server(name)
        if info.status != "connected":
            raise RequestFailed(f"Failed to enable {name}: {info.error or info.status}")
    else:
        ps.disabled_servers.add(name)
        await ps.session.controls.disable_mcp_server(name)
    return {}


async def get_context_usage(ps: ProtocolSession, req: Mapping[str, Any]) -> dict[str, Any]:
    b = ps.session.controls.context_usage()
    categories = [
        ("System prompt", "system_prompt", b.system),
        ("Memory files", "memory_files", b.memory),
        ("System tools", "system_tools", b.tools),
        ("Messages", "messages", b.messages + b.tool_results),
    ]
    used = b.used
    return {
        "categories": [
            {"id": key, "name": name, "tokens": tokens, "color": "inactive", "kind": "used"}
            for name, key, tokens in categories
        ]
        + [
            {
                "id": "free",
                "name": "Free space",
                "tokens": max(0, b.window - used),
                "color": "promptBorder",
                "kind": "free",
            }
        ],
        "totalTokens": used,
        "maxTokens": b.compact_at or b.window,
        "rawMaxTokens": b.window,
        "percentage": round(100 * used / b.window, 2) if b.window else 0.0,
        "model": b.model,
        "isAutoCompactEnabled": b.compact_at is not None,
        "autoCompactThreshold": b.compact_at or 0,
        "memoryFiles": [],
        "mcpTools": [],
        "agents": [],
        "gridRows": [],
    }


async def rewind_files(ps: ProtocolSession, req: Mapping[str, Any]) -> dict[str, Any]:
    raise RequestFailed("File rewinding is not enabled.")


HANDLERS: dict[str, Handler] = {
    "initialize": initialize,
    "interrupt": interrupt,
    "set_permission_mode": set_permission_mode,
    "set_model": set_model,
    "mcp_status": mcp_status,
    "mcp_reconnect": mcp_reconnect,
    "mcp_toggle": mcp_toggle,
    "get_context_usage": get_context_usage,
    "rewind_files": rewind_files,
}
