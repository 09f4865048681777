"""Shell command analysis shared by the Bash tool and the permission system.

It lives under `tools/` because Bash's `is_read_only` needs it and `tools/` may not import the
application; `app/permissions` builds its rule matching on top of it.
"""

from tools.shell.readonly import is_read_only_command

__all__ = ["is_read_only_command"]
