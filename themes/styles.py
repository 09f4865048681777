"""The named Rich styles lathe's renderables use, painted from the current Textual theme.

Widgets and the renderables they freeze into (the conversation's archive, a resumed history) name
a role -- `Text("●", style="lathe.ok")` -- never a colour. The App turns the theme's CSS variables
into a Rich `Theme` of these roles and pushes it onto its console each time the theme changes
(app/tui/theme_styles.py), so every theme, light or dark, paints every block its own way.

Rich's own `markdown.*` styles are part of the set: a frozen answer is drawn by Rich's Markdown,
whose defaults (cyan code on black) are dark-on-dark under a light theme.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rich.style import Style
from rich.theme import Theme
from textual.color import Color, ColorParseError

# Role -> a Rich style whose colours are `$variables` of the Textual theme.
ROLES: dict[str, str] = {
    # States shared by tool blocks, the progress panel, the plan and dialogs.
    "lathe.ok": "$success",
    "lathe.busy": "$warning",
    "lathe.failed": "$error",
    "lathe.stopped": "$warning",
    "lathe.plan.active": "bold $warning",
    # Notices in the conversation.
    "lathe.notice.warning": "$warning",
    "lathe.notice.error": "bold $error",
    "lathe.notice.retry": "$warning",
    "lathe.notice.interrupt": "bold $warning",
    # A unified diff.
    "lathe.diff.hunk": "$secondary",
    "lathe.diff.add": "$success",
    "lathe.diff.remove": "$error",
    # The status bar.
    "lathe.activity": "bold $warning",
    "lathe.branch": "$secondary",
    "lathe.mode.acceptEdits": "bold $success",
    "lathe.mode.plan": "bold $secondary",
    "lathe.mode.bypassPermissions": "bold $error",
    "lathe.mode.dontAsk": "bold $warning",
    # The busy line and the welcome line.
    "lathe.spinner": "bold $primary",
    "lathe.key": "bold $primary",
    # A tool's command line (widgets/code_label.py) and its description beside it.
    "lathe.code.keyword": "bold $primary",
    "lathe.code.builtin": "$accent",
    "lathe.code.string": "$success",
    "lathe.code.number": "$warning",
    "lathe.code.comment": "italic $foreground-muted",
    "lathe.code.variable": "$secondary",
    "lathe.code.operator": "$secondary",
    "lathe.tool.note": "$foreground-muted",
    # Thinking: quieter than the answer.
    "lathe.thinking": "italic $foreground-muted",
    # Rich's Markdown (frozen answers, resumed history).
    "markdown.code": "bold $accent on $surface",
    "markdown.code_block": "$accent on $surface",
    "markdown.block_quote": "$secondary",
    "markdown.list": "$accent",
    "markdown.item.number": "$accent",
    "markdown.h2": "underline $primary",
    "markdown.h3": "bold $primary",
    "markdown.h4": "italic $primary",
    "markdown.link": "$secondary",
    "markdown.link_url": "underline $secondary",
    "markdown.table.border": "$foreground-muted",
    "markdown.table.header": "bold $accent",
    "markdown.kbd": "bold $warning",
}
# A marker, not a style to draw with: bold under a dark theme (see is_dark).
DARK_MARKER = "lathe.theme-is-dark"

_VARIABLE = re.compile(r"\$([a-z][a-z0-9-]*)")


def solid(value: str, background: Color) -> Color | None:
    """A theme variable as an opaque colour: translucent ones (`$boost`, `$foreground-muted`)
    are laid over the background, as the terminal will show them. None: not a colour
    (e.g. `auto 87%`, resolved by Textual per widget)."""
    try:
        colour = Color.parse(value)
    except ColorParseError:
        return None
    return background + colour if colour.a < 1 else colour


# Textual draws Rich's `dim` by mixing the text two thirds of the way into its background
# (textual.constants.DIM_FACTOR): 1.56:1 in solarized-light. lathe's `dim` is a colour mixed only
# as far as keeps this contrast (WCAG; 3:1 is the legible minimum, the rest is a margin for the
# tints a block is drawn on: hover, focus, surface).
DIM_CONTRAST = 3.4
# The Rich style names lathe dims with; each becomes the theme's dim colour plus its attributes.
DIM_STYLES = ("dim", "dim italic", "dim strike")


def luminance(colour: Color) -> float:
    """WCAG relative luminance."""

    def channel(value: int) -> float:
        x = value / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    r, g, b = colour.rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio, 1 to 21."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def dim_colour(foreground: Color, *backgrounds: Color, least: float = DIM_CONTRAST) -> Color:
    """The text colour mixed toward the (first) background as Textual's dim does, but no
    further than keeps `least` contrast against every background (the plain text colour if even
    that does not reach it)."""
    from textual.constants import DIM_FACTOR

    base = backgrounds[0]
    share = DIM_FACTOR
    while share < 1.0:
        mixed = base.blend(foreground, share)
        if all(contrast(mixed, b) >= least for b in backgrounds):
            return mixed
        share = min(1.0, share + 0.02)
    return foreground


def _dim_too_faint(foreground: Color, background: Color, surface: Color) -> bool:
    """Whether Textual's own dim of the text colour falls below DIM_CONTRAST (the themes where
    it does not keep Rich's dim, as drawn before)."""
    from textual.constants import DIM_FACTOR

    if foreground.ansi is not None:
        return False
    mixed = background.blend(foreground, DIM_FACTOR)
    return any(contrast(mixed, b) < DIM_CONTRAST for b in (background, surface))


def _legible(style: Style, foreground: Color, *backgrounds: Color) -> Style:
    """A role's colour moved toward the text colour until it reaches DIM_CONTRAST against the
    backgrounds it is drawn on (a light theme's pale green or yellow: 1.4:1 in atom-one-light)."""
    if style.color is None or style.color.triplet is None:
        return style
    if style.bgcolor is not None and style.bgcolor.triplet is not None:
        backgrounds = (Color(*style.bgcolor.triplet),)
    colour = Color(*style.color.triplet)
    share = 0.0
    while share < 1.0 and any(contrast(colour, b) < DIM_CONTRAST for b in backgrounds):
        share = min(1.0, share + 0.05)
        colour = Color(*style.color.triplet).blend(foreground, share)
    return style + Style(color=colour.hex) if share else style


def rich_theme(variables: Mapping[str, str], *, dark: bool = True) -> Theme:
    """Every role with the theme's colours in place of its `$variables`. A role whose variable
    the theme lacks keeps its text attributes and loses only that colour."""
    background = solid(variables.get("background", "#000000"), Color(0, 0, 0)) or Color(0, 0, 0)
    foreground = solid(variables.get("foreground", ""), background)
    surface = solid(variables.get("surface", ""), background) or background
    resolved: dict[str, str] = {}
    for name, value in variables.items():
        colour = solid(value, background)
        if colour is None:
            continue
        if colour.ansi is None:
            resolved[name] = colour.hex
        elif colour.ansi >= 0:
            # The ansi-* themes: the terminal's own palette entry, as Rich names it.
            resolved[name] = f"color({colour.ansi})"
        # ansi_default (-1): the terminal's default colour, i.e. no colour in the style
    styles: dict[str, Style] = {}
    for role, template in ROLES.items():
        words = []
        for word in template.split():
            match = _VARIABLE.fullmatch(word)
            if match is None:
                words.append(word)
            elif match.group(1) in resolved:
                words.append(resolved[match.group(1)])
            elif words and words[-1] == "on":
                words.pop()  # "on $missing": no background rather than a broken style
        styles[role] = Style.parse(" ".join(words))
    if foreground is not None and foreground.ansi is None:
        for role, style in styles.items():
            styles[role] = _legible(style, foreground, background, surface)
    styles[DARK_MARKER] = Style(bold=dark)
    if foreground is not None and _dim_too_faint(foreground, background, surface):
        dim = dim_colour(foreground, background, surface)
        for name in DIM_STYLES:
            # Rich looks a style name up in the theme before parsing it as attributes.
            attributes = Style.parse(name.replace("dim", "").strip() or "none")
            styles[name] = attributes + Style(color=dim.hex)
    return Theme(styles, inherit=True)


def is_dark(marker: Style) -> bool:
    """Whether the theme is dark, from the DARK_MARKER style the console carries (a code block
    then takes a dark palette). Without the marker (a console lathe did not set up): dark."""
    return marker.bold is not False
