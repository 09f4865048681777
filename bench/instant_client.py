"""The streaming clocks' floor: a client that shows each text delta the moment its bytes arrive.

It reads a line (the bench types the prompt and presses Enter, the terminal echoes it), sends one
streamed request to the API fake and writes every text delta straight to the terminal: no SDK, no
parsing beyond finding the delta's text, no screen model. Whatever the bench's clocks read for it
is the cost of the measurement itself (the fake, the socket, tmux, the poll), the floor under any
real client's figure. Run as `python -m bench.instant_client` in the pane, with
ANTHROPIC_BASE_URL and ANTHROPIC_MODEL set.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import urllib.parse

READY = "ready>"


def stream(url: str, model: str, prompt: str) -> None:
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80)
    body = {
        "model": model,
        "max_tokens": 1024,
        "stream": True,
        "messages": [{"role": "user", "content": prompt}],
    }
    headers = {
        "content-type": "application/json",
        "x-api-key": os.environ.get("ANTHROPIC_API_KEY", "bench"),
        "anthropic-version": "2023-06-01",
    }
    conn.request("POST", "/v1/messages", json.dumps(body), headers)
    response = conn.getresponse()
    while line := response.readline():
        if not line.startswith(b"data: "):
            continue
        event = json.loads(line[6:])
        delta = event.get("delta") or {}
        if delta.get("type") == "text_delta":
            os.write(1, delta["text"].encode())
    conn.close()


def main() -> int:
    url = os.environ["ANTHROPIC_BASE_URL"]
    model = os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-6")
    while True:
        os.write(1, f"\n{READY} ".encode())
        line = sys.stdin.readline()
        if not line:
            return 0
        stream(url, model, line.strip() or "hi")


if __name__ == "__main__":
    sys.exit(main())
