"""MCP server configuration: settings tables, .mcp.json, ${VAR} expansion, bad entries."""

from __future__ import annotations

import json
from pathlib import Path

from app.mcp.config import SETTINGS_LABEL, expand_vars, load_mcp_config, parse_servers


def test_expand_vars_like_claude_code() -> None:
    env = {"HOST": "example.com", "EMPTY": ""}
    assert expand_vars("https://${HOST}/x", env) == ("https://example.com/x", [])
    assert expand_vars("${PORT:-8080}", env) == ("8080", [])
    assert expand_vars("${HOST:-other}", env) == ("example.com", [])
    assert expand_vars("${EMPTY}", env) == ("", [])
    assert expand_vars("${MISSING}/$HOST", env) == ("${MISSING}/$HOST", ["MISSING"])


def test_settings_and_mcp_json_both_contribute(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {
                        "command": "npx",
                        "args": ["-y", "srv", "${ROOT}"],
                        "env": {"A": "1"},
                    },
                    "remote": {
                        "type": "http",
                        "url": "https://${HOST}/mcp",
                        "headers": {"Authorization": "Bearer ${TOKEN}"},
                    },
                    "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
                    "shared": {"command": "from-json"},
                }
            }
        )
    )
    settings = {
        "shared": {"command": "from-settings", "env": {"N": 3}},
        "bare": {"url": "http://h/mcp"},
    }
    env = {"ROOT": "/r", "HOST": "h.example", "TOKEN": "t0k"}
    config = load_mcp_config(settings, tmp_path, env)
    by_name = {s.name: s for s in config.servers}
    assert set(by_name) == {"files", "remote", "legacy", "shared", "bare"}
    files = by_name["files"]
    assert (files.transport, files.command, files.args, dict(files.env)) == (
        "stdio",
        "npx",
        ("-y", "srv", "/r"),
        {"A": "1"},
    )
    assert files.source == str(tmp_path / ".mcp.json")
    remote = by_name["remote"]
    assert (remote.transport, remote.url) == ("http", "https://h.example/mcp")
    assert dict(remote.headers) == {"Authorization": "Bearer t0k"}
    assert by_name["legacy"].transport == "sse"
    assert by_name["bare"].transport == "http"
    # The settings win a name clash, and the clash is reported.
    assert by_name["shared"].command == "from-settings"
    assert dict(by_name["shared"].env) == {"N": "3"}
    assert by_name["shared"].source == SETTINGS_LABEL
    assert [str(p) for p in config.problems] == [
        f"{tmp_path / '.mcp.json'}: MCP server 'shared': ignored: {SETTINGS_LABEL} defines it too"
    ]


def test_bad_entries_are_problems_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "no-command": {"args": ["x"]},
                    "bad-args": {"command": "x", "args": "not a list"},
                    "bad-type": {"type": "ws", "url": "ws://x"},
                    "bad-url": {"type": "http", "url": "ftp://x"},
                    "not-a-table": 3,
                    "bad-env": {"command": "x", "env": {"A": ["list"]}},
                    "empty": {"command": "  "},
                    "good": {"command": "ok", "env": {"K": "${UNSET_VAR_XYZ}"}},
                }
            }
        )
    )
    config = load_mcp_config({}, tmp_path, {})
    assert [s.name for s in config.servers] == ["good"]
    texts = [str(p) for p in config.problems]
    assert all(t.startswith(str(path)) for t in texts)
    joined = "\n".join(texts)
    for expected in (
        "'no-command': a stdio server needs \"command\"",
        "'bad-args': args must be a list of strings, not a string",
        "'bad-type': unknown type 'ws'",
        "'bad-url': url must start with http:// or https://",
        "'not-a-table': expected a table, not a number",
        "'bad-env': env.A must be a string, not a list",
        "'empty': command is empty",
        "'good': env.K: environment variables not set: UNSET_VAR_XYZ",
    ):
        assert expected in joined, expected
    warning = next(p for p in config.problems if p.server == "good")
    assert warning.severity == "warning"


def test_unreadable_mcp_json_never_crashes(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text("{not json")
    config = load_mcp_config({"ok": {"command": "x"}}, tmp_path, {})
    assert [s.name for s in config.servers] == ["ok"]
    assert str(config.problems[0]).startswith(f"{path}: not valid JSON")
    path.write_text(json.dumps({"servers": {}}))
    assert 'expected an object with "mcpServers"' in str(
        load_mcp_config({}, tmp_path, {}).problems[0]
    )
    path.write_bytes(b"\xff\xfe\x00bad")
    assert "cannot read the file" in str(load_mcp_config({}, tmp_path, {}).problems[0])


def test_missing_mcp_json_is_fine_and_untrusted_is_skipped(tmp_path: Path) -> None:
    assert load_mcp_config({}, tmp_path, {}).problems == []
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"command": "x"}}}))
    config = load_mcp_config({}, tmp_path, {}, trusted=False)
    assert config.servers == []
    assert "not trusted" in str(config.problems[0])


def test_settings_table_of_the_wrong_shape() -> None:
    specs, problems = parse_servers(["a"], SETTINGS_LABEL, {})
    assert specs == [] and "the servers must be a table, not a list" in str(problems[0])
