"""The debug log: `LATHE_LOG=FILE` appends every exception lathe catches and goes on from.

Sinks, hooks, MCP servers and the tool executor each swallow failures on purpose (a broken front
end or server must not break the conversation); without this log such a failure would leave no
trace. The module sits below everything (standard library only), so any layer may record.

Format, one entry per exception, appended (the file is created 0600; entries from several
processes interleave whole, one write each):

    --- 2026-12-01T12:00:00.123456Z pid=4242 area=sink
    the executor's event observer raised on ToolFinished
    Traceback (most recent call last):
      ...
    ValueError: boom

`area` is one of sink, hook, mcp, executor, permissions, engine; the line after the header says
where it was caught and what lathe did instead. Values of credential variables in the
environment (names holding KEY, TOKEN, SECRET, PASSWORD, AUTH, COOKIE or CREDENTIAL) are
replaced with `[redacted]`. Writing the log never raises.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import threading
import traceback
from typing import Literal

ENV_VAR = "LATHE_LOG"
Area = Literal["sink", "hook", "mcp", "executor", "permissions", "engine", "tui", "acp"]

_LOCK = threading.Lock()
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|COOKIE|CREDENTIAL", re.I)
# Shorter values are too likely to occur by chance in a traceback to be worth hiding.
_MIN_SECRET_LEN = 8


def log_path() -> str | None:
    """The file named by LATHE_LOG now (read at each record, so it can be set at any time)."""
    value = os.environ.get(ENV_VAR, "").strip()
    return os.path.expanduser(value) if value else None


def enabled() -> bool:
    return log_path() is not None


def record(area: Area, what: str, exc: BaseException | None = None) -> None:
    """Append one entry: where it was caught (`what`) and the exception with its traceback.

    Call it from the `except` block: without `exc`, the exception being handled is recorded."""
    path = log_path()
    if path is None:
        return
    try:
        text = format_entry(area, what, exc)
        _append(path, text)
    except Exception:
        return  # the log is a witness, never a new failure


def format_entry(area: Area, what: str, exc: BaseException | None = None) -> str:
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if exc is None:
        lines = traceback.format_exc()
        body = "" if lines.strip() == "NoneType: None" else lines
    else:
        body = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    one_line = " ".join(what.split())
    entry = f"--- {now} pid={os.getpid()} area={area}\n{one_line}\n{body}"
    if not entry.endswith("\n"):
        entry += "\n"
    return redact(entry)


def redact(text: str) -> str:
    for name, value in os.environ.items():
        if len(value) >= _MIN_SECRET_LEN and _SECRET_NAME.search(name) and value in text:
            text = text.replace(value, "[redacted]")
    return text


def _append(path: str, text: str) -> None:
    data = text.encode("utf-8", errors="replace")
    with _LOCK:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
