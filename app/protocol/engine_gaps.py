"""What the SDK protocol needs that the front-end API (app.engine.api.SessionPort) does not offer
yet, in one place so the rest of app/protocol uses the port alone.

Each is a candidate for the port's phase 2: per-server MCP details and switching a server off
(`mcp_status`, `mcp_toggle`), per-model usage (`modelUsage`), the context's numbers
(`get_context_usage`), and registering hook callbacks a program supplies (SDK hooks).
"""

from __future__ import annotations

from typing import Any

from app.engine.api import SessionPort
from app.hooks.runner import CommandHookRunner


def _session(port: SessionPort) -> Any:
    return port  # the engine's Session, which implements the port and carries these parts


def mcp_servers(port: SessionPort) -> list[Any]:
    """The servers' ServerInfo (name, status, transport, error, tools)."""
    manager = _session(port).parts.mcp
    return list(manager.servers()) if manager is not None else []


def has_mcp_server(port: SessionPort, name: str) -> bool:
    manager = _session(port).parts.mcp
    return manager is not None and manager.server(name) is not None


async def reconnect_mcp(port: SessionPort, name: str) -> Any:
    session = _session(port)
    info = await session.parts.mcp.reconnect(name)
    session.refresh_tools()
    return info


async def disable_mcp(port: SessionPort, name: str) -> None:
    session = _session(port)
    await session.parts.mcp.disable(name)
    session.refresh_tools()


def model_usage(port: SessionPort) -> dict[str, Any]:
    """`modelUsage`: per model, cumulative over the session, in Claude Code's camelCase."""
    session = _session(port)
    window = int(session.context_window())
    max_out = int(session.parts.max_tokens)
    return {
        name: {
            "inputTokens": m.input_tokens,
            "outputTokens": m.output_tokens,
            "cacheReadInputTokens": m.cache_read_input_tokens,
            "cacheCreationInputTokens": m.cache_creation_input_tokens,
            "webSearchRequests": 0,
            "costUSD": round(m.cost_usd, 6),
            "contextWindow": window,
            "maxOutputTokens": max_out,
        }
        for name, m in session.usage.by_model.items()
    }


def context_breakdown(port: SessionPort) -> Any:
    """The numbers behind `/context` (app.engine.context.Breakdown)."""
    from app.engine.long_session import breakdown

    return breakdown(_session(port))


def hook_runner(port: SessionPort) -> CommandHookRunner | None:
    runner = _session(port).parts.session_hooks
    return runner if isinstance(runner, CommandHookRunner) else None


def define_agents(port: SessionPort, definitions: list[Any]) -> bool:
    """Add agent types (app.agents.definitions.AgentDefinition) to the session's: the Agent
    tool runs them and its description lists them. False when the session has no Agent tool."""
    from dataclasses import replace

    from tools.agent import AgentTool
    from tools.registry import assemble_tool_pool

    session = _session(port)
    agents = session.parts.agents
    builtins = session.parts.builtin_tools
    if agents is None or builtins is None or session.pool.find("Agent") is None:
        return False
    for definition in definitions:
        agents.agents[definition.name] = definition
    summaries = agents.summaries()
    builtins = tuple(t.with_agents(summaries) if isinstance(t, AgentTool) else t for t in builtins)
    session.parts.builtin_tools = builtins
    manager = session.parts.mcp
    pool = assemble_tool_pool(builtins, manager.tools() if manager else (), session.parts.rules)
    session.pool = pool
    session.context = replace(session.context, tools=pool.tools)
    session.deps.tools = pool.tools
    return True


def agent_names(port: SessionPort) -> list[str]:
    agents = _session(port).parts.agents
    return [a.name for a in agents.all()] if agents is not None else []


def agent_list(port: SessionPort) -> list[dict[str, Any]]:
    """initialize's `agents`: each type's name, description and model, as Claude Code lists them."""
    agents = _session(port).parts.agents
    out: list[dict[str, Any]] = []
    for a in agents.all() if agents is not None else []:
        entry: dict[str, Any] = {"name": a.name, "description": a.description}
        if a.model:
            entry["model"] = a.model
        out.append(entry)
    return out
