"""A one-line command (a Bash call's label) highlighted in the theme's colours: each token names a
`lathe.code.*` role (themes/styles.py), which the console resolves from the current theme when the
line is drawn, so a light theme gets its own readable colours and a theme change repaints it."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

# Pygments (Rich's own highlighter) ships no type stubs.
from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]
from pygments.token import (  # type: ignore[import-untyped]
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
)
from pygments.util import ClassNotFound  # type: ignore[import-untyped]
from rich.text import Text

# The most specific first: a builtin is a Name, a variable is a Name too. (Frozen answers' code
# blocks paint the same token kinds with the same roles: widgets/frozen_markdown.py.)
TOKEN_ROLES: tuple[tuple[Any, str], ...] = (
    (Comment, "lathe.code.comment"),
    (String, "lathe.code.string"),
    (Number, "lathe.code.number"),
    (Keyword, "lathe.code.keyword"),
    (Name.Builtin, "lathe.code.builtin"),
    (Name.Variable, "lathe.code.variable"),
    (Operator, "lathe.code.operator"),
    (Punctuation, "lathe.code.operator"),
)


def _role(token: Any) -> str:
    for kind, role in TOKEN_ROLES:
        if token in kind:
            return role
    return ""


@lru_cache(maxsize=512)
def _pieces(text: str, language: str) -> tuple[tuple[str, str], ...]:
    try:
        lexer = get_lexer_by_name(language)
    except ClassNotFound:
        return ((text, ""),)
    return tuple((value, _role(token)) for token, value in lexer.get_tokens(text))


def highlighted(text: str, language: str) -> Text:
    """`text` as `language`, its tokens styled by theme roles (plain where no role applies)."""
    out = Text()
    for value, role in _pieces(text, language):
        out.append(value, style=role)
    out.rstrip()
    return out
