"""lathe's style roles resolve under every theme it offers (its own and Textual's), light themes
paint light, and a theme missing a variable loses only that colour."""

from __future__ import annotations

import pytest
from rich.style import Style
from textual.color import Color

from themes.loader import lathe_themes
from themes.styles import DARK_MARKER, ROLES, is_dark, rich_theme, solid

THEMES = lathe_themes()
NAMES = THEMES.names()


def variables(name: str) -> dict[str, str]:
    return THEMES.get(name).to_color_system().generate()


def colour_of(v: dict[str, str], word: str) -> Color | None:
    """The theme's colour for `$name` (None: the terminal's default, as in the ansi themes)."""
    background = solid(v["background"], Color(0, 0, 0)) or Color(0, 0, 0)
    colour = solid(v.get(word.lstrip("$"), ""), background)
    return None if colour is None or colour.ansi == -1 else colour


@pytest.mark.parametrize("name", NAMES)
def test_every_role_has_its_colour_under_every_theme(name: str) -> None:
    v = variables(name)
    styles = rich_theme(v).styles
    for role, template in ROLES.items():
        words = template.split()
        style = styles[role]
        for n, word in enumerate(words):
            if not word.startswith("$") or colour_of(v, word) is None:
                continue
            if n and words[n - 1] == "on":
                assert style.bgcolor is not None, (name, role)
            else:
                assert style.color is not None, (name, role)


@pytest.mark.parametrize("name", NAMES)
def test_light_themes_paint_code_light_and_dark_ones_dark(name: str) -> None:
    theme = THEMES.get(name)
    styles = rich_theme(variables(name), dark=theme.dark).styles
    assert is_dark(styles[DARK_MARKER]) == theme.dark, name
    # The frozen answer's inline code is on the theme's surface, not Rich's black.
    assert styles["markdown.code"].bgcolor != Style.parse("on black").bgcolor
    assert is_dark(Style())  # a console lathe did not set up: the dark palette


def test_translucent_variables_are_laid_over_the_background() -> None:
    v = variables("lathe-light")
    muted = rich_theme(v).styles["lathe.thinking"].color
    assert muted is not None and muted.triplet is not None  # an opaque colour, not "#rrggbbaa"


def test_a_missing_variable_drops_only_that_colour() -> None:
    styles = rich_theme({"background": "#ffffff", "success": "#00aa00"}).styles
    assert styles["lathe.ok"].color is not None
    assert styles["lathe.notice.error"].bold and styles["lathe.notice.error"].color is None
    assert styles["markdown.code"].bold and styles["markdown.code"].bgcolor is None
