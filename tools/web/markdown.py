"""HTML to Markdown for the model: the readable text, without scripts, styles and page chrome."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from markdownify import MarkdownConverter

_DROP_TAGS = ("script", "style", "noscript", "template", "svg", "canvas", "iframe", "head")
_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def html_to_markdown(html: str) -> tuple[str, str]:
    """Returns (title, markdown)."""
    soup = BeautifulSoup(html, "html.parser")
    title = ""
    if soup.title is not None and soup.title.string:
        title = " ".join(soup.title.string.split())
    for tag in soup(list(_DROP_TAGS)):
        tag.decompose()
    body = soup.body or soup
    text = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(body)
    text = "\n".join(line.rstrip() for line in text.splitlines())
    return title, _BLANK_RUNS.sub("\n\n", text).strip()
