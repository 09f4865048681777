"""The fake's server-side web search: a request offering the `web_search_20250305` tool gets what
the API sends back, a server_tool_use, its web_search_tool_result (hits honouring allowed_domains
and blocked_domains) and a text summary, without consuming a scripted turn.

Hits are made up from the query, deterministically, on a fixed set of domains, so a test can tell
a domain filter apart from no filter. `FakeAPI.web_search_supported = False` answers the 400 an
endpoint without server tools gives.
"""

from __future__ import annotations

import re
from typing import Any

from app.model import sse

SERVER_TOOL_TYPE = "web_search_20250305"
DOMAINS = ("docs.python.org", "python.org", "example.com", "news.example.org")
UNSUPPORTED = (
    "tools.0: Input tag 'web_search_20250305' found using 'type' does not match any of the "
    "expected tags"
)


def web_search_tool(body: Any) -> dict[str, Any] | None:
    if not isinstance(body, dict):
        return None
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("type") == SERVER_TOOL_TYPE:
            return tool
    return None


def _query(body: dict[str, Any]) -> str:
    messages = body.get("messages") or [{}]
    content = messages[-1].get("content", "")
    if isinstance(content, list):
        content = " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    text = str(content)
    return text.split("query:", 1)[1].strip() if "query:" in text else text.strip()


def _allowed(domain: str, tool: dict[str, Any]) -> bool:
    def under(d: str, parent: str) -> bool:
        return d == parent or d.endswith("." + parent)

    allowed = tool.get("allowed_domains") or []
    blocked = tool.get("blocked_domains") or []
    if allowed and not any(under(domain, a) for a in allowed):
        return False
    return not any(under(domain, b) for b in blocked)


def search_message(body: dict[str, Any], tool: dict[str, Any]) -> dict[str, Any]:
    query = _query(body)
    slug = re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-") or "q"
    hits = [
        {
            "type": "web_search_result",
            "title": f"{query} - {domain}",
            "url": f"https://{domain}/{slug}",
            "encrypted_content": "fake",
            "page_age": None,
        }
        for domain in DOMAINS
        if _allowed(domain, tool)
    ]
    tool_id = "srvtoolu_" + sse.new_tool_use_id().removeprefix("toolu_")
    content = [
        {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": query}},
        {"type": "web_search_tool_result", "tool_use_id": tool_id, "content": hits},
        {"type": "text", "text": f"Found {len(hits)} results for {query}."},
    ]
    return {
        "id": sse.new_message_id(),
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 10,
            "output_tokens": 10,
            "server_tool_use": {"web_search_requests": 1},
        },
    }
