"""Every colour on lathe's screen comes from the theme: no literal colour in widgets/ or app/tui/.

A literal ("red", "#ff0000", "bold cyan on black") looks right under one theme and wrong under the
next (dark text on a dark background); styles name theme variables in CSS ($success) and roles
in Rich renderables (lathe.ok, themes/styles.py). This test reads the sources so it stays that way.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from rich.color import ColorType
from rich.errors import StyleSyntaxError
from rich.style import Style
from textual.color import Color, ColorParseError

ROOT = Path(__file__).resolve().parents[3]
SCANNED = [ROOT / "widgets", ROOT / "app" / "tui"]

HEX = re.compile(r"(?:^|[\s:(,])#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")
FUNCTION = re.compile(r"\b(?:rgba?|hsla?)\s*\(|\bcolor\(\d")
# CSS properties that take a colour, and the value words that are not colours.
CSS_COLOUR = re.compile(
    r"(?<![\w-])(color|background|tint|outline(?:-[a-z]+)?|border(?:-[a-z]+)?|"
    r"scrollbar-[a-z-]+|link-[a-z-]+|text-[a-z-]+|[a-z-]+-color)\s*:\s*([^;}\n]+)"
)
NOT_COLOURS = {"transparent", "auto", "none", "inherit", "initial", "default"}


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string nodes that are docstrings (prose may say "red")."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _rich_colour(text: str) -> bool:
    """Whether `text` is a Rich style that names a colour (not the terminal's default)."""
    if not text.strip() or len(text) > 80:
        return False
    try:
        style = Style.parse(text)
    except (StyleSyntaxError, ValueError):
        return False
    return any(c is not None and c.type != ColorType.DEFAULT for c in (style.color, style.bgcolor))


def _css_literals(text: str) -> list[str]:
    found = []
    for prop, value in CSS_COLOUR.findall(text):
        for word in value.split():
            if word.startswith("$") or word in NOT_COLOURS or word.endswith("%"):
                continue
            try:
                Color.parse(word)
            except ColorParseError:
                continue
            found.append(f"{prop}: {value.strip()}")
    return found


def literal_colours(text: str) -> list[str]:
    problems = [m.group(0).strip() for m in HEX.finditer(text)]
    problems += [m.group(0) for m in FUNCTION.finditer(text)]
    problems += _css_literals(text)
    if _rich_colour(text):
        problems.append(text)
    return problems


def scan_python(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            out += [
                f"{path.relative_to(ROOT)}:{node.lineno}: {p!r}"
                for p in literal_colours(node.value)
            ]
    return out


def scan_css(path: Path) -> list[str]:
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        out += [f"{path.relative_to(ROOT)}:{n}: {p!r}" for p in literal_colours(line)]
    return out


def test_no_literal_colour_in_widgets_or_the_tui() -> None:
    found: list[str] = []
    files = 0
    for folder in SCANNED:
        for path in sorted(folder.rglob("*.py")):
            files += 1
            found += scan_python(path)
        for path in sorted(folder.rglob("*.tcss")):
            files += 1
            found += scan_css(path)
    assert files > 40  # the scan reached the sources
    assert found == [], (
        "literal colours (use $variables in CSS, lathe.* roles in Rich):\n" + "\n".join(found)
    )


def test_the_scanner_catches_each_kind_of_literal() -> None:
    # Each of these once stood in a widget; the scan must flag every one.
    for literal in (
        "bold red",
        "cyan",
        "bold cyan on black",
        "grey50",
        "#ff8800",
        "rgb(10,20,30)",
        "ToolBlock { background: #202020; }",
        "X { color: red; }",
        "border-left: thick green;",
    ):
        assert literal_colours(literal), literal
    for fine in (
        "bold",
        "dim italic",
        "lathe.ok",
        "X { color: $text-muted; background: $boost 50%; }",
        "border-left: thick $accent;",
        "default",
        "Read the red file",
        "issue #12",
    ):
        assert literal_colours(fine) == [], fine
