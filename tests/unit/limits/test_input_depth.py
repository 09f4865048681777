"""5,000-deep JSON (or TOML) in any input lathe parses is a clear error naming the input, never a
RecursionError: settings files, scenario files, .mcp.json, the trust file, transcript lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app import jsonlimits
from app.config import load_settings_file
from app.mcp.config import read_mcp_json
from app.model.scenario import ScenarioError, load_scenario
from app.permissions.trust import is_trusted, trust_file

DEEP_JSON = "[" * 5000 + "]" * 5000
DEEP_TOML_ARRAY = "x = " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_TOML_TABLE = "x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n"
DEEP_TOML_KEYS = ".".join(["k"] * 3000) + " = 1\n"


def test_the_limit_itself() -> None:
    assert jsonlimits.loads("[" * 100 + "]" * 100, "x") is not None
    with pytest.raises(jsonlimits.JsonLimitError) as info:
        jsonlimits.loads("[" * 101 + "]" * 101, "the input")
    assert str(info.value) == "the input: nested deeper than 100 levels (line 1); refused"
    # Brackets inside strings do not nest; bytes work the same.
    assert jsonlimits.loads(json.dumps({"s": "[" * 5000}).encode(), "x") == {"s": "[" * 5000}
    assert isinstance(info.value, json.JSONDecodeError)  # every malformed-JSON handler takes it


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("settings.toml", DEEP_TOML_ARRAY),
        ("settings.toml", DEEP_TOML_TABLE),
        ("settings.toml", DEEP_TOML_KEYS),
        ("settings.json", '{"permissions": ' + DEEP_JSON + "}"),
    ],
)
def test_settings_files(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    settings, exists, problems = load_settings_file(path, "user")
    assert settings is None and exists
    assert [p.path for p in problems] == [str(path)]
    assert "nested deeper than 100 levels" in problems[0].message


@pytest.mark.parametrize(("name", "text"), [("s.json", DEEP_JSON), ("s.toml", DEEP_TOML_ARRAY)])
def test_scenario_files(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ScenarioError, match=f"{path}: nested deeper than 100 levels"):
        load_scenario(path)


def test_mcp_json(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text('{"mcpServers": ' + DEEP_JSON + "}")
    servers, problems = read_mcp_json(path, {})
    assert servers == [] and len(problems) == 1
    assert problems[0].source == str(path) and "nested deeper" in problems[0].message


def test_trust_file(tmp_path: Path) -> None:
    path = trust_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"trusted": ' + DEEP_JSON + "}")
    assert is_trusted(tmp_path) is False  # unreadable: not trusted, and no crash


def test_a_broken_toml_file_with_a_deep_prefix_is_salvaged_without_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[permissions]\ndeny = ["Bash"]\n' + DEEP_TOML_ARRAY + "this is = = broken\n")
    settings, exists, problems = load_settings_file(path, "user")
    assert exists and problems and str(path) in str(problems[0])
    # Fail closed: the deny rule before the deep line is still kept.
    assert settings is not None and settings.permissions.deny == ["Bash"]


@pytest.mark.parametrize(
    "text, line",
    [
        ('{\n "permissions": {"deny": ["Read(.env)"]},\n "permissions": {"allow": []}\n}\n', 3),
        ('{"permissions": {"deny": ["Bash(rm:*)"],\n "deny": []}}', 2),
    ],
)
def test_a_duplicate_key_is_a_broken_file_not_a_silent_override(
    tmp_path: Path, text: str, line: int
) -> None:
    # The later object would replace the earlier one and its deny rules would vanish unseen.
    path = tmp_path / "settings.json"
    path.write_text(text)
    settings, exists, problems = load_settings_file(path, "project")
    assert settings is None and exists
    assert "duplicate key" in problems[0].message and problems[0].line == line


def test_a_hundred_thousand_deep_settings_file_is_refused_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    settings, exists, problems = load_settings_file(path, "project")
    assert settings is None and exists
    assert "nested deeper than 100 levels" in problems[0].message
