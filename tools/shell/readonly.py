"""Placeholder until the permissions work lands: no command is read-only (fail closed)."""


def is_read_only_command(command: str) -> bool:
    return False
