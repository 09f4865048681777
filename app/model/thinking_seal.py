"""Signatures for scripted thinking, so the fake API can refuse a modified block as the real one
does ("Invalid `signature` in `thinking` block").

The real API signs each thinking block and encrypts redacted_thinking; a client must send them
back exactly as received. Here a thinking block's signature is a digest of its text, and a
redacted block's data carries a digest of its payload: a client that edits, trims or re-joins
either is caught by app/model/validate.py.
"""

from __future__ import annotations

import hashlib

SIGNATURE_PREFIX = "scripted-"
REDACTED_PREFIX = "scripted-redacted."


def _digest(text: str) -> str:
    return hashlib.sha256(b"lathe-scripted-thinking\0" + text.encode()).hexdigest()[:16]


def sign(thinking: str) -> str:
    return SIGNATURE_PREFIX + _digest(thinking)


def signature_matches(thinking: str, signature: str) -> bool:
    """A scripted signature must be the one its text was signed with; any other signature (not
    made here) is not ours to judge."""
    if not signature.startswith(SIGNATURE_PREFIX) or signature.startswith(REDACTED_PREFIX):
        return True
    return signature == sign(thinking)


def seal(payload: str) -> str:
    """A redacted_thinking block's opaque `data`."""
    return f"{REDACTED_PREFIX}{payload}.{_digest(payload)}"


def seal_intact(data: str) -> bool:
    if not data.startswith(REDACTED_PREFIX):
        return True
    payload, _, digest = data[len(REDACTED_PREFIX) :].rpartition(".")
    return digest == _digest(payload)
