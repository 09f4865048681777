"""The assistant's markdown, live (Textual's widget) and frozen (Rich, for the archive and the full
view): a 600-character code line wraps whole, tables fit their content, links show their URL."""

from __future__ import annotations

from rich.console import Console
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets._markdown import MarkdownFence, MarkdownParagraph, MarkdownTableContent

from widgets.assistant_block import AssistantBlock
from widgets.frozen_markdown import FrozenMarkdown

LONG = "value = '" + "".join(f"{i:03d}abcdefg" for i in range(60)) + "'"  # 609 characters
MARKDOWN = f"""See [the docs](https://docs.python.org/3/), <https://example.com> and [me](mailto:me@x.org).

```python
{LONG}
print('short')
```

| Key | Does |
|-----|------|
| Tab | complete |
| Ctrl+O | full view |

| Column | Long text |
|---|---|
| a | {"word " * 60} |
"""


def frozen_lines(width: int) -> list[str]:
    import io

    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(FrozenMarkdown(MARKDOWN))
    return console.export_text().splitlines()


def test_frozen_markdown_wraps_code_fits_tables_and_shows_urls() -> None:
    lines = frozen_lines(80)
    assert all(len(line) <= 80 for line in lines)
    joined = "".join(line.strip() for line in lines)
    assert LONG.replace(" ", "") in joined.replace(" ", "")  # every character, none cut
    text = " ".join(" ".join(lines).split())
    assert "the docs (https://docs.python.org/3/)" in text
    assert text.count("https://example.com") == 1  # a bare link is not repeated
    assert "me (mailto:me@x.org)" in text
    narrow = [line for line in lines if "Ctrl+O" in line]
    assert narrow and len(narrow[0].rstrip()) < 40  # as wide as its content
    wide = [line for line in lines if "word word" in line]
    assert len(wide) > 3  # the too-wide cell wraps inside the pane


class Show(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield AssistantBlock(MARKDOWN)


async def test_live_markdown_wraps_code_fits_tables_and_shows_urls() -> None:
    app = Show()
    async with app.run_test(size=(80, 60)) as pilot:
        await pilot.pause()
        block = app.query_one(AssistantBlock)
        fence = block.query_one(MarkdownFence)
        assert fence.region.right <= block.region.right
        # 609 characters in a ~70-column pane: at least 9 lines, not one cut line.
        assert fence.region.height >= 9
        narrow, wide = list(block.query(MarkdownTableContent))
        # As wide as their content (the cells), not the pane; the wide one stays inside it.
        assert max(cell.region.right for cell in narrow.children) < 40
        assert max(cell.region.right for cell in wide.children) <= block.region.right
        assert wide.region.height > 4  # its long cell wraps
        paragraph = block.query_one(MarkdownParagraph)
        plain = paragraph._content.plain
        assert "the docs (https://docs.python.org/3/)" in plain
        assert plain.count("https://example.com") == 1


def test_frozen_code_blocks_take_their_colours_from_the_theme() -> None:
    """No fixed Pygments palette: a code block's keyword is the theme's `lathe.code.keyword`
    (its primary colour), under lathe's light theme and its dark one alike."""
    import io

    from themes.loader import lathe_themes
    from themes.styles import rich_theme

    themes = lathe_themes()
    seen = {}
    for name in ("lathe-light", "lathe-dark"):
        theme = themes.get(name)
        styles = rich_theme(theme.to_color_system().generate(), dark=theme.dark)
        console = Console(width=60, file=io.StringIO(), color_system="truecolor", theme=styles)
        lines = console.render_lines(FrozenMarkdown("```python\ndef f():\n    return 1\n```"))
        segments = [s for line in lines for s in line if s.text.strip() == "def"]
        assert segments, name
        keyword = console.get_style("lathe.code.keyword")
        assert segments[0].style is not None and segments[0].style.color == keyword.color, name
        seen[name] = keyword.color
    assert seen["lathe-light"] != seen["lathe-dark"]
