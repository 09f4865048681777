"""Red team corpus for the non-Bash tools: paths, WebFetch hosts and MCP names.

Rows are (context, tool, input, expected) through the real RuleDecider; "noallow" means ask or
deny. `{P}` in an input is the project folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from app.permissions import PermissionContext
from tests.unit.permissions.helpers import context, decide

ALLOW = (
    "Read(./src/**)",
    "Edit(./src/**)",
    "WebFetch(domain:example.com)",
    "mcp__gh",
    "mcp__srv__read",
)
DENY = (
    "Read(./.env)",
    "Read(~/.ssh/**)",
    "Edit(./secrets/**)",
    "WebFetch(domain:evil.com)",
    "mcp__evil",
)
R, E = "rules", "edits"

ROWS: list[tuple[str, str, dict[str, Any], str]] = [
    # -- paths -----------------------------------------------------------------------------------
    (R, "Read", {"file_path": ".env\x00"}, "deny"),
    (R, "Edit", {"file_path": "src/a.py\x00"}, "deny"),
    (R, "Read", {"file_path": "src/envl"}, "deny"),
    (R, "Edit", {"file_path": "src/envl"}, "deny"),
    (R, "Read", {"file_path": "src/../src/../.env"}, "deny"),
    (R, "Read", {"file_path": "{P}/./.env"}, "deny"),
    (R, "Read", {"file_path": "{P}//.env"}, "deny"),
    (R, "Read", {"file_path": ".env/."}, "deny"),
    (R, "Read", {"file_path": "src/../.env/"}, "deny"),
    (R, "Read", {"file_path": "/proc/self/root{P}/.env"}, "deny"),
    (R, "Read", {"file_path": "src/etcl/passwd"}, "noallow"),
    (R, "Edit", {"file_path": "src/etcl/x"}, "noallow"),
    (R, "Edit", {"file_path": "secrets/a"}, "deny"),
    (R, "Write", {"file_path": "src/../secrets/b"}, "deny"),
    (R, "Read", {"file_path": "\\\\?\\C:\\x"}, "deny"),
    (R, "Read", {"file_path": "//server/share/x"}, "deny"),
    (R, "Read", {"file_path": "/dev/stdin"}, "deny"),
    (R, "Read", {"file_path": "/proc/self/fd/0"}, "deny"),
    (R, "Read", {"file_path": "/proc/thread-self/fd/0"}, "noallow"),
    (R, "Read", {"file_path": "/dev/sda"}, "noallow"),
    (R, "Read", {"file_path": "/proc/self/mem"}, "noallow"),
    (R, "Read", {"file_path": "~root/.ssh/id_rsa"}, "noallow"),
    (R, "Edit", {"file_path": "~/../x"}, "noallow"),
    (E, "Edit", {"file_path": ".Git/config"}, "noallow"),
    (E, "Edit", {"file_path": ".GIT/hooks/pre-commit"}, "noallow"),
    (E, "Write", {"file_path": "src/.Claude/settings.json"}, "noallow"),
    (E, "Write", {"file_path": ".BashRC"}, "noallow"),
    (E, "Write", {"file_path": ".MCP.json"}, "noallow"),
    (E, "Edit", {"file_path": "src/etcl/x"}, "noallow"),
    (E, "Edit", {"file_path": "/proc/self/cwd/src/a.py"}, "noallow"),
    (E, "Edit", {"file_path": "src/x/../../../x"}, "noallow"),
    # -- WebFetch --------------------------------------------------------------------------------
    (R, "WebFetch", {"url": "https://example.com.evil.com/"}, "deny"),
    (R, "WebFetch", {"url": "https://example.com@evil.com/"}, "deny"),
    (R, "WebFetch", {"url": "https://evil.com#@example.com/"}, "deny"),
    (R, "WebFetch", {"url": "https://evil.com?@example.com/"}, "deny"),
    (R, "WebFetch", {"url": "https://example.com:80@evil.com/"}, "deny"),
    (R, "WebFetch", {"url": "https://example.com%2F@evil.com/"}, "deny"),
    (R, "WebFetch", {"url": "https://example.com:@evil.com/"}, "deny"),
    (R, "WebFetch", {"url": "https://evil.com\\.example.com/"}, "deny"),
    (R, "WebFetch", {"url": "https://example.com;.evil.com/"}, "deny"),
    (R, "WebFetch", {"url": "https://sub.evil.com/"}, "deny"),
    (R, "WebFetch", {"url": "https://EVIL.com:443./"}, "deny"),
    (R, "WebFetch", {"url": "https://example.com\t.evil.com/"}, "deny"),
    (R, "WebFetch", {"url": "https://xn--exmple-cua.com/"}, "noallow"),
    (R, "WebFetch", {"url": "https://ex\u0430mple.com/"}, "noallow"),
    (R, "WebFetch", {"url": "https://example\u3002com/"}, "noallow"),
    (R, "WebFetch", {"url": "https://\uff45xample.com/"}, "noallow"),
    (R, "WebFetch", {"url": "https://2130706433/"}, "noallow"),
    (R, "WebFetch", {"url": "https://0x7f.1/"}, "noallow"),
    (R, "WebFetch", {"url": "https://[::1]/"}, "noallow"),
    (R, "WebFetch", {"url": "https://@example.com"}, "noallow"),
    (R, "WebFetch", {"url": "https:///example.com"}, "noallow"),
    (R, "WebFetch", {"url": "https:example.com"}, "noallow"),
    (R, "WebFetch", {"url": "//example.com/"}, "noallow"),
    (R, "WebFetch", {"url": "https://ex%61mple.com/"}, "noallow"),
    (R, "WebFetch", {"url": "https://example.com,evil.org/"}, "noallow"),
    (R, "WebFetch", {"url": "https://[example.com]/"}, "noallow"),
    # -- MCP -------------------------------------------------------------------------------------
    (R, "mcp__gh___x", {}, "noallow"),
    (R, "mcp__gh____x", {}, "noallow"),
    (R, "mcp__gh__a__b", {}, "noallow"),
    (R, "mcp__gh__", {}, "noallow"),
    (R, "mcp__srv__read_", {}, "noallow"),
    (R, "mcp__srv__read__x", {}, "noallow"),
    (R, "mcp__EVIL__x", {}, "noallow"),
    (R, "mcp__evil___x", {}, "deny"),
    (R, "mcp__evil__x__y", {}, "deny"),
    (R, "mcp__ev__il__x", {}, "noallow"),
    (R, "Mcp__gh__x", {}, "noallow"),
]


@pytest.fixture(scope="module")
def contexts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, PermissionContext]:
    out: dict[str, PermissionContext] = {}
    for name, kwargs in {R: {"allow": ALLOW, "deny": DENY}, E: {"mode": "acceptEdits"}}.items():
        tmp = tmp_path_factory.mktemp(name)
        pc = context(tmp, **kwargs)  # type: ignore[arg-type]
        project = Path(pc.project_dir)
        outside = tmp / "outside"
        outside.mkdir()
        (outside / "passwd").write_text("x\n")
        (project / "src" / "a.py").write_text("x")
        (project / "secrets").mkdir()
        os.symlink(project / ".env", project / "src" / "envl")
        os.symlink(outside, project / "src" / "etcl")
        out[name] = pc
    return out


def test_redteam_tools_corpus_size() -> None:
    assert len(ROWS) >= 60


@pytest.mark.parametrize(("ctx", "tool", "input", "expected"), ROWS)
def test_redteam_tool(
    contexts: dict[str, PermissionContext],
    ctx: str,
    tool: str,
    input: dict[str, Any],
    expected: str,
) -> None:
    pc = contexts[ctx]
    inp = {
        k: v.replace("{P}", pc.project_dir) if isinstance(v, str) else v for k, v in input.items()
    }
    d = decide(pc, tool, inp)
    if expected == "noallow":
        assert d.behavior != "allow", d.reason
    else:
        assert d.behavior == expected, d.reason


@pytest.mark.parametrize(
    ("tool", "input"),
    [
        ("Read", {"file_path": "src/a.py"}),
        ("WebFetch", {"url": "https://EXAMPLE.com./x"}),
        ("mcp__gh__issues", {}),
        ("mcp__gh__list_prs", {}),
        ("mcp__srv__read", {}),
    ],
)
def test_redteam_tool_controls(
    contexts: dict[str, PermissionContext], tool: str, input: dict[str, Any]
) -> None:
    assert decide(contexts[R], tool, input).behavior == "allow"
