"""How the assistant's markdown is parsed and drawn, live (Textual's Markdown widget) and frozen
(Rich's Markdown, for the archive and the full view), so both show the same things:

- links show their URL after the text, "text (https://...)": clicking a link is not something
  every terminal does, and the reader should see where it goes;
- code blocks wrap long lines instead of cutting them (the live widget scrolls them sideways by
  default, with no scrollbar);
- tables are as wide as their content, not the whole pane; a table too wide for the pane wraps
  its cells, and one that cannot fit without cutting a word shows each row as "Column: value"
  lines, as Claude Code does (widgets/stacked_table.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from rich.markdown import Markdown as RichMarkdown

from widgets.stacked_table import FittingTableElement

# Links the parser made from a bare URL or an <autolink>: their text is the URL already.
SELF_NAMED = frozenset({"autolink", "linkify"})

# The rules for the live widget's code blocks and tables (AssistantBlock's DEFAULT_CSS adds them).
MARKDOWN_LAYOUT_CSS = """
    AssistantBlock MarkdownFence { overflow-x: hidden; }
    AssistantBlock MarkdownFence > Label { width: 1fr; text-wrap: wrap; text-overflow: fold; }
    AssistantBlock MarkdownTable { width: auto; max-width: 100%; }
"""


def _link_children(children: Sequence[Token]) -> list[Token]:
    out: list[Token] = []
    open_links: list[tuple[str, str, list[str]]] = []  # href, markup, the text so far
    for child in children:
        if child.type == "link_open":
            open_links.append((str(child.attrs.get("href", "")), child.markup, []))
        elif child.type in ("text", "code_inline") and open_links:
            open_links[-1][2].append(child.content)
        elif child.type == "link_close" and open_links:
            href, markup, parts = open_links.pop()
            shown = "".join(parts).strip()
            if href and markup not in SELF_NAMED and shown not in (href, _bare(href)):
                # Inside the link, so the URL is styled (and clickable) like its text.
                out.append(Token("text", "", 0, content=f" ({href})"))
        out.append(child)
    return out


def _bare(href: str) -> str:
    return href.removeprefix("mailto:")


def show_link_urls(tokens: Sequence[Token]) -> None:
    """Put each link's URL after its text, in place (the inline tokens' children)."""
    for token in tokens:
        if token.type == "inline" and token.children:
            token.children = _link_children(token.children)


def _link_url_rule(state: StateCore) -> None:
    show_link_urls(state.tokens)


def parser_factory() -> MarkdownIt:
    """Textual's own parser ("gfm-like"), plus the rule that shows link URLs."""
    parser = MarkdownIt("gfm-like")
    parser.core.ruler.push("lathe_link_urls", _link_url_rule)
    return parser


class LinkedMarkdown(RichMarkdown):
    """Rich's Markdown with link URLs shown (widgets/frozen_markdown.py draws answers with it);
    its code blocks already wrap and its tables fit their content, or, too wide for the width
    they are drawn at, stack their rows (widgets/stacked_table.py)."""

    elements = {**RichMarkdown.elements, "table_open": FittingTableElement}

    def __init__(self, markup: str, **kwargs: Any) -> None:
        super().__init__(markup, **kwargs)
        show_link_urls(self.parsed)
