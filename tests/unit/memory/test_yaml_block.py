"""The nested frontmatter YAML a skill's `hooks:` is written in (app/memory/yaml_block.py), and
the flat frontmatter's BOM and lists of maps (ext-r2 F3, F15, F21)."""

from __future__ import annotations

import pytest

from app.memory.frontmatter import split_frontmatter
from app.memory.guard import never_read_reason
from app.memory.yaml_block import YamlBlockError, nested_block, parse_block

_SKILL = """---
name: hs
hooks:
  PreToolUse:
    - matcher: "Bash|Write"   # a comment
      hooks:
        - type: command
          command: 'echo ''quoted'' >&2; exit 2'
          timeout: 5
  Stop:
  - hooks:
    - type: command
      command: ./stop.sh
description: after
---
body
"""


def test_hooks_block_reads_as_the_settings_files_shape() -> None:
    block = nested_block(_SKILL, "hooks")
    assert block is not None
    assert parse_block(block) == {
        "PreToolUse": [
            {
                "matcher": "Bash|Write",
                "hooks": [
                    {"type": "command", "command": "echo 'quoted' >&2; exit 2", "timeout": 5}
                ],
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}],
    }
    assert nested_block("---\nname: x\n---\n", "hooks") is None


@pytest.mark.parametrize(
    "value",
    [
        "  PreToolUse: |\n    x",
        "  PreToolUse:\n    - {type: command}",
        "  PreToolUse:\n      - a\n    - b",
        "  PreToolUse:\n    - matcher: x\n    - matcher: y\n       bad: z",
        '  PreToolUse:\n    - command: "never closed',
        "  a: 1\n  a: 2",
    ],
)
def test_what_it_cannot_read_is_an_error_never_a_silent_drop(value: str) -> None:
    block = nested_block(f"---\nhooks:\n{value}\n---\n", "hooks")
    assert block is not None
    with pytest.raises(YamlBlockError):
        parse_block(block)


def test_flat_frontmatter_after_a_bom_and_around_a_list_of_maps() -> None:
    fields, body = split_frontmatter("\ufeff---\ndisable-model-invocation: true\n---\nB")
    assert fields == {"disable-model-invocation": "true"} and body == "B"
    fields, _ = split_frontmatter(
        "---\narguments:\n  - name: f\n    description: d\n- name: g\nallowed-tools:\n"
        "  - Bash(git add:*)\nmodel: m\n---\n"
    )
    assert fields == {"allowed-tools": ["Bash(git add:*)"], "model": "m"}


@pytest.mark.parametrize(
    "path",
    [
        "/h/.npmrc",
        "/h/.config/gh/hosts.yml",
        "/h/.pypirc",
        "/h/.config/gcloud/application_default_credentials.json",
        "/h/.azure/accessTokens.json",
        "/h/.bash_history",
        "/h/.claude.json",
        "/h/.cargo/credentials.toml",
    ],
)
def test_the_guard_knows_registry_cloud_and_history_files(path: str) -> None:
    from pathlib import Path

    assert never_read_reason(Path(path))
    assert not never_read_reason(Path("/h/project/docs/gh.md"))
