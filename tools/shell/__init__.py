"""Shell command analysis shared by the Bash tool and the permission system.

It lives under `tools/` because Bash's `is_read_only` needs it and `tools/` may not import the
application; `app/permissions` builds its rule matching on top of it.
"""

from tools.shell.commands import allow_form, code_reason, deny_forms, inner_code, strip_wrappers
from tools.shell.parse import (
    MAX_COMMAND_CHARS,
    Redirect,
    ShellAnalysis,
    SimpleCommand,
    analyze,
    has_control_chars,
)
from tools.shell.readonly import is_read_only_command, is_read_only_part, read_only_words

__all__ = [
    "MAX_COMMAND_CHARS",
    "Redirect",
    "ShellAnalysis",
    "SimpleCommand",
    "allow_form",
    "analyze",
    "code_reason",
    "deny_forms",
    "has_control_chars",
    "inner_code",
    "is_read_only_command",
    "is_read_only_part",
    "read_only_words",
    "strip_wrappers",
]
