"""Text drawn on a bar (the status line) kept at a least WCAG contrast against its own cell's
background, whatever the theme's role colours are.

A light theme's $success or $warning is often a pale tint (atom-one-light's green on its
panel grey: 1.1:1); the bar's text is moved toward black or white, whichever its background
contrasts with more, only as far as reaches the contrast. Done on the drawn segments, so every
colour source (CSS component classes, Rich styles of the console theme, `dim`) is covered."""

from __future__ import annotations

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.strip import Strip

from themes.styles import contrast

_BLACK, _WHITE = Color(0, 0, 0), Color(255, 255, 255)


def legible_colour(colour: Color, background: Color, least: float) -> Color:
    """`colour`, or the least mix of it toward black/white that reaches `least` on `background`."""
    if contrast(colour, background) >= least:
        return colour
    target = _BLACK if contrast(_BLACK, background) >= contrast(_WHITE, background) else _WHITE
    share = 0.0
    mixed = colour
    while share < 1.0 and contrast(mixed, background) < least:
        share = min(1.0, share + 0.02)
        mixed = colour.blend(target, share)
    return mixed


def legible_strip(strip: Strip, least: float) -> Strip:
    """The strip with every truecolor text colour raised to `least` against its background.
    Terminal palette colours (ansi-* themes) are left alone: the terminal picks them."""
    segments = []
    changed = False
    for text, style, control in strip:
        if style is not None and text.strip():
            fixed = _legible_style(style, least)
            if fixed is not style:
                changed = True
                style = fixed
        segments.append(Segment(text, style, control))
    return Strip(segments, strip.cell_length) if changed else strip


def _legible_style(style: Style, least: float) -> Style:
    fg, bg = style.color, style.bgcolor
    if fg is None or bg is None or fg.triplet is None or bg.triplet is None:
        return style
    if style.dim:
        return style
    colour, background = Color(*fg.triplet), Color(*bg.triplet)
    fixed = legible_colour(colour, background, least)
    if fixed == colour:
        return style
    return style + Style(color=RichColor.from_rgb(*fixed.rgb))
