"""The key footer's key names kept legible in light themes (tui-r5 F8).

Textual draws a footer key in $footer-key-foreground (the theme's $accent by default) on
$footer-background ($panel): atom-one-light's gold on its grey is 1.8:1. The variable is raised to
FOOTER_CONTRAST against the footer's background, the least mix toward black that reaches it;
dark themes keep their colours (their snapshots and their users' eyes are unchanged)."""

from __future__ import annotations

from textual.color import Color, ColorParseError

from widgets.legible_strip import legible_colour

# WCAG's minimum for large or non-text UI; the keys are short bold labels beside their text.
FOOTER_CONTRAST = 3.0


def legible_footer_variables(variables: dict[str, str], *, dark: bool) -> dict[str, str]:
    """The variables with footer-key-foreground raised to FOOTER_CONTRAST (light themes)."""
    if dark:
        return variables
    try:
        background = Color.parse(variables.get("footer-background", variables["panel"]))
        base = Color.parse(variables["background"])
        key = Color.parse(variables["footer-key-foreground"])
    except (KeyError, ColorParseError):
        return variables  # an ansi or unusual theme: the terminal's palette decides
    if background.ansi is not None or key.ansi is not None:
        return variables
    background = base + background if background.a < 1 else background
    fixed = legible_colour(key, background, FOOTER_CONTRAST)
    if fixed == key:
        return variables
    return {**variables, "footer-key-foreground": fixed.hex}
