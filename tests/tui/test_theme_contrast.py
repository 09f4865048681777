"""The status bar and the footer are readable in each of lathe's own themes: every drawn
segment reaches 4.5:1 against its background (WCAG AA). lathe-light's footer keys were 2.7:1
and its "acceptEdits" 3.9:1 (black-box round 3, C65)."""

from __future__ import annotations

import pytest
from textual.widgets import Footer

from tests.tui.conftest import make_app

THEMES = ["lathe-dark", "lathe-light", "lathe-steel"]
AA = 4.5


def _luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) / 255 for i in (0, 2, 4))

    def channel(x: float) -> float:
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(fg: str, bg: str) -> float:
    a, b = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("mode", ["acceptEdits", "plan"])
async def test_status_bar_and_footer_reach_aa(theme: str, mode: str) -> None:
    app = make_app(theme=theme, permission_mode=mode)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        low: list[tuple[float, str]] = []
        checked = 0
        for bar in (app.main.status_bar, *app.main.query(Footer)):
            for widget in (bar, *bar.query("*")):
                for y in range(widget.size.height):
                    for seg in widget.render_line(y):
                        style = seg.style
                        if not seg.text.strip() or style is None or style.dim:
                            continue
                        if style.color is None or style.bgcolor is None:
                            continue
                        fg = style.color.get_truecolor().hex
                        bg = style.bgcolor.get_truecolor().hex
                        checked += 1
                        ratio = contrast(fg, bg)
                        if ratio < AA:
                            low.append((round(ratio, 2), seg.text.strip()))
        assert checked > 5
        assert low == [], (theme, low)
