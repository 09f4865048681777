"""The side request behind the WebSearch tool: one call of the session's model with the API's
server-side web search tool, as Claude Code makes it (measured against Claude Code 2.1.332: same
system text, one user line, `max_uses` 8, the domain lists passed through).

An endpoint without server tools answers 400; the search is then switched off for the session
with one notice, and later calls say so at once instead of paying for another refused request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tools.base import WebSearcher, WebSearchRequest, WebSearchUnavailable

if TYPE_CHECKING:
    from app.engine.session import Session

SERVER_TOOL_TYPE = "web_search_20250305"
SYSTEM = (
    "You run a web search for another Claude model, which is waiting on the result and can search "
    "again. Search once, then reply with a brief summary of the results."
)
MAX_TOKENS = 8192


def server_tool(request: WebSearchRequest) -> dict[str, Any]:
    tool: dict[str, Any] = {"type": SERVER_TOOL_TYPE, "name": "web_search"}
    if request.allowed_domains:
        tool["allowed_domains"] = list(request.allowed_domains)
    if request.blocked_domains:
        tool["blocked_domains"] = list(request.blocked_domains)
    tool["max_uses"] = request.max_uses
    return tool


def _refuses_server_tools(status: int, message: str) -> bool:
    text = message.lower()
    return status in (400, 404, 422) and ("web_search" in text or "server tool" in text)


def make_web_search(session: Session) -> WebSearcher | None:
    if session.backend.kind != "api":
        return None
    state = {"off": ""}

    async def search(request: WebSearchRequest) -> list[dict[str, Any]]:
        if state["off"]:
            raise WebSearchUnavailable(state["off"])
        import anthropic

        model = session.backend.model
        try:
            response: Any = await session.backend.client.messages.create(
                model=model,
                max_tokens=MAX_TOKENS,
                system=SYSTEM,
                messages=[
                    {
                        "role": "user",
                        "content": f"Perform a web search for the query: {request.query}",
                    }
                ],
                tools=[server_tool(request)],  # type: ignore[list-item]
            )
        except anthropic.APIStatusError as exc:
            message = str(getattr(exc, "message", "") or exc)
            if not _refuses_server_tools(exc.status_code, message):
                raise WebSearchUnavailable(f"Web search failed: {message}") from None
            state["off"] = (
                "Web search is off for this session: the API endpoint does not offer the "
                f"server-side web search tool ({message[:200]})."
            )
            from app.engine.events import Notice

            session.emit(Notice(state["off"], "warning"))
            raise WebSearchUnavailable(state["off"]) from None
        except anthropic.APIError as exc:
            raise WebSearchUnavailable(f"Web search failed: {exc}") from None
        session.usage.add(model, response.usage)
        return [block.model_dump(mode="json") for block in response.content]

    return search
