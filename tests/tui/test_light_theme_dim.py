"""tui-r4 F8: finished blocks' dimmed text stays legible in every bundled light theme. Textual
draws Rich's `dim` by mixing the text colour two thirds of the way into the background, which in
solarized-light left a done Read block's lines at 1.56:1; lathe's `dim` is now a colour derived
from each theme (themes/styles.py dim_colour), mixed only as far as keeps 3:1 or better. The
check is WCAG contrast on every drawn cell of the blocks, after Textual's own filters."""

from __future__ import annotations

import pytest
from textual.color import Color
from textual.widget import Widget

from tests.tui import scenes, tool_scenes
from tests.tui.conftest import make_app
from tests.tui.test_theme_contrast import contrast
from themes.styles import dim_colour

LEGIBLE = 3.0


def _light_themes() -> list[str]:
    app = make_app()
    # ansi-* themes draw in the terminal's own palette: their contrast is the terminal's.
    themes = app.available_themes.items()
    return sorted(n for n, t in themes if not t.dark and not n.startswith("ansi-"))


def _low_cells(widget: Widget) -> tuple[int, list[tuple[float, str]]]:
    checked, low = 0, []
    for y in range(widget.size.height):
        for seg in widget.render_line(y):
            style = seg.style
            if not seg.text.strip() or style is None or style.color is None:
                continue
            if style.bgcolor is None:
                continue
            fg = style.color.get_truecolor().hex
            bg = style.bgcolor.get_truecolor().hex
            checked += 1
            ratio = contrast(fg, bg)
            if ratio < LEGIBLE:
                low.append((round(ratio, 2), seg.text.strip()))
    return checked, low


def test_every_light_theme_is_checked() -> None:
    themes = _light_themes()
    assert {"lathe-light", "solarized-light", "catppuccin-latte"} <= set(themes)


@pytest.mark.parametrize("theme", _light_themes())
async def test_finished_blocks_dim_text_reaches_3_to_1(theme: str) -> None:
    app = make_app(theme=theme)
    async with app.run_test(size=(100, 40)) as pilot:
        scenes.feed(app, tool_scenes.what_runs())
        await pilot.pause()
        await pilot.pause()
        blocks = list(app.main.conversation.query("ToolBlock"))
        assert blocks
        checked, low = 0, []
        for widget in [*blocks, *app.main.query("ProgressPanel")]:
            n, found = _low_cells(widget)
            checked += n
            low.extend(found)
        assert checked > 20
        assert low == [], (theme, low)


@pytest.mark.parametrize("dark", [False, True])
def test_the_dim_colour_is_mixed_only_as_far_as_contrast_holds(dark: bool) -> None:
    background, foreground = (Color(10, 10, 10), Color(230, 230, 230))
    if not dark:
        background, foreground = Color(253, 246, 227), Color(88, 110, 117)  # solarized-light
    dim = dim_colour(foreground, background)
    ratio = contrast(dim.hex, background.hex)
    assert 3.0 <= ratio < contrast(foreground.hex, background.hex)


STATUS_LEGIBLE = 4.5


def _cells(widget: Widget) -> list[tuple[float, str]]:
    """(contrast, text) of every drawn cell run that has text and both colours."""
    found = []
    for y in range(widget.size.height):
        for seg in widget.render_line(y):
            style = seg.style
            if not seg.text.strip() or style is None or style.color is None:
                continue
            if style.bgcolor is None:
                continue
            fg = style.color.get_truecolor().hex
            bg = style.bgcolor.get_truecolor().hex
            found.append((round(contrast(fg, bg), 2), seg.text.strip()))
    return found


@pytest.mark.parametrize("left", [0.95, 0.4, 0.1])
@pytest.mark.parametrize("theme", _light_themes())
async def test_status_bar_and_footer_are_legible(theme: str, left: float) -> None:
    """tui-r5 F8: the status line (the context meter at each level included) at 4.5:1 or
    better, the key footer at 3:1 or better, in every bundled light theme (atom-one-light's
    "context 95% left" was 1.1:1, its footer keys 1.8:1)."""
    app = make_app(theme=theme)
    async with app.run_test(size=(100, 30)) as pilot:
        app.main.status_bar.set(context_left=left, input_tokens=1200, output_tokens=30)
        await pilot.pause()
        status = _cells(app.main.status_bar)
        assert any("context" in text for _, text in status)
        low = [(r, t) for r, t in status if r < STATUS_LEGIBLE]
        assert low == [], (theme, "status", low)
        footer: list[tuple[float, str]] = []
        for key in app.main.query("FooterKey"):
            footer.extend(_cells(key))
        assert len(footer) >= 4
        low = [(r, t) for r, t in footer if r < LEGIBLE and t != "▏"]
        assert low == [], (theme, "footer", low)
