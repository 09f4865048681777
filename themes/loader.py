"""Load colour themes from TOML files into Textual `Theme` objects.

A theme file:

    name = "lathe-dark"          # optional, defaults to the file's stem
    dark = true
    [colors]
    primary = "#5fafff"          # required; also secondary, accent, foreground, background,
                                 # surface, panel, boost, warning, error, success
    [variables]                  # optional Textual CSS variables
    "footer-key-foreground" = "#5fafff"

Bad files never crash the app: they are reported as `ThemeError`s naming the file and the problem.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES, Theme

BUILTIN_DIR = Path(__file__).resolve().parent
COLOR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "warning",
    "error",
    "success",
)


class ThemeError(Exception):
    """A theme file that cannot be used, or a theme name that does not exist."""


def _colour(path: Path, key: str, value: object) -> str:
    if not isinstance(value, str):
        raise ThemeError(f'{path}: colors.{key} must be a string like "#1e1e2e"')
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeError(f"{path}: colors.{key} = {value!r} is not a colour") from None
    return value


def load_theme_file(path: Path) -> Theme:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ThemeError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ThemeError(f"{path}: invalid TOML: {exc}") from None
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        raise ThemeError(f"{path}: name must be a non-empty string")
    colors = data.get("colors")
    if not isinstance(colors, dict):
        raise ThemeError(f"{path}: missing [colors] table")
    unknown = sorted(set(colors) - set(COLOR_KEYS))
    if unknown:
        raise ThemeError(f"{path}: unknown colour {unknown[0]!r}; known: {', '.join(COLOR_KEYS)}")
    if "primary" not in colors:
        raise ThemeError(f"{path}: colors.primary is required")
    values = {key: _colour(path, key, value) for key, value in colors.items()}
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeError(f"{path}: dark must be true or false")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in variables.items()
    ):
        raise ThemeError(f"{path}: [variables] must map names to strings")
    return Theme(
        name=name,
        primary=values["primary"],
        secondary=values.get("secondary"),
        accent=values.get("accent"),
        foreground=values.get("foreground"),
        background=values.get("background"),
        surface=values.get("surface"),
        panel=values.get("panel"),
        boost=values.get("boost"),
        warning=values.get("warning"),
        error=values.get("error"),
        success=values.get("success"),
        dark=dark,
        variables=dict(variables),
    )


@dataclass
class ThemeSet:
    themes: dict[str, Theme] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def names(self) -> list[str]:
        return sorted(set(self.themes) | set(BUILTIN_THEMES))

    def get(self, name: str) -> Theme:
        theme = self.themes.get(name) or BUILTIN_THEMES.get(name)
        if theme is None:
            raise ThemeError(f"Unknown theme {name!r}. Available: {', '.join(self.names())}")
        return theme


def _load_dir(folder: Path, into: ThemeSet) -> None:
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.toml")):
        try:
            theme = load_theme_file(path)
        except ThemeError as exc:
            into.errors.append(str(exc))
            continue
        into.themes[theme.name] = theme


def lathe_themes(user_dir: Path | None = None) -> ThemeSet:
    """lathe's own themes, then the user's (a user theme may replace one of the same name)."""
    found = ThemeSet()
    _load_dir(BUILTIN_DIR, found)
    if user_dir is not None:
        _load_dir(user_dir, found)
    return found
