"""The string replacement of Edit, as a pure function on text."""

from __future__ import annotations

from dataclasses import dataclass

# Typographic quotes a model tends to type as straight ones. One character each way, so the
# positions in the normalised text are the positions in the original.
_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"'})


class ReplaceError(Exception):
    """The edit cannot be applied; the message tells the model what to change."""


@dataclass(frozen=True)
class Replacement:
    text: str
    count: int
    # Offset in the old text of the first replaced occurrence.
    first_index: int


def _not_found(old: str) -> ReplaceError:
    return ReplaceError(f"String to replace not found in file.\nString: {old}")


def find_actual(text: str, old: str) -> str | None:
    """`old` as it appears in `text`: exactly, or with the file's curly quotes where it has straight."""
    if old in text:
        return old
    normalised_old = old.translate(_QUOTES)
    index = text.translate(_QUOTES).find(normalised_old)
    if index < 0:
        return None
    return text[index : index + len(old)]


def replace(text: str, old: str, new: str, replace_all: bool) -> Replacement:
    if old == "":
        if text.strip():
            raise ReplaceError("Cannot create new file - file already exists.")
        return Replacement(new, 1, 0)
    actual = find_actual(text, old)
    if actual is None:
        raise _not_found(old)
    count = text.count(actual)
    if count > 1 and not replace_all:
        raise ReplaceError(
            f"Found {count} matches of the string to replace, but replace_all is false. To "
            "replace all occurrences, set replace_all to true. To replace only one occurrence, "
            "please provide more context to uniquely identify the instance.\n"
            f"String: {old}"
        )
    # Deleting a whole line: take its newline too, or a blank line is left behind.
    if new == "" and not actual.endswith("\n") and text.count(actual + "\n") == count:
        actual += "\n"
    first = text.index(actual)
    if replace_all:
        return Replacement(text.replace(actual, new), count, first)
    return Replacement(text[:first] + new + text[first + len(actual) :], 1, first)
