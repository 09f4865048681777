"""Images, PDFs and notebooks as content the model can read."""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from typing import Any

# The API refuses images over 5 MB of base64; 3.75 MB of raw bytes encodes to just under that.
MAX_IMAGE_BYTES = 3_750_000
MAX_PDF_PAGES_PER_CALL = 20
MAX_NOTEBOOK_OUTPUT_CHARS = 10_000

_PAGES = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class MediaError(Exception):
    """A file that cannot be turned into content; the message is for the model."""


def image_media_type(data: bytes) -> str | None:
    """The media type from the file's magic bytes (a `.png` that is really a JPEG stays a JPEG)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_block(data: bytes, media_type: str) -> dict[str, Any]:
    return {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": media_type,
            "data": base64.b64encode(data).decode("ascii"),
        },
    }


def parse_pages(spec: str) -> tuple[int, int]:
    """`"3"` or `"1-5"` to an inclusive 1-based range. Raises ValueError with a sentence."""
    match = _PAGES.match(spec)
    if not match:
        raise ValueError(
            f'Invalid pages parameter: "{spec}". Use a page number ("3") or a range ("1-5").'
        )
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) else first
    if first < 1 or last < first:
        raise ValueError(
            f'Invalid pages parameter: "{spec}". Pages start at 1 and a range must not run '
            "backwards."
        )
    if last - first + 1 > MAX_PDF_PAGES_PER_CALL:
        raise ValueError(
            f'Page range "{spec}" has {last - first + 1} pages; at most '
            f"{MAX_PDF_PAGES_PER_CALL} pages can be read in one call. Read it in smaller ranges."
        )
    return first, last


@dataclass(frozen=True)
class PdfText:
    total_pages: int
    first: int
    last: int
    text: str


def read_pdf(path: str, pages: tuple[int, int] | None) -> PdfText:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        total = len(reader.pages)
    except (PdfReadError, ValueError, OSError) as exc:
        raise MediaError(f"Could not read the PDF: {exc}") from None
    if pages is None:
        if total > MAX_PDF_PAGES_PER_CALL:
            raise MediaError(
                f"This PDF has {total} pages, more than the {MAX_PDF_PAGES_PER_CALL} one call can "
                f"read. Pass `pages` with a range of at most {MAX_PDF_PAGES_PER_CALL} pages "
                f'(e.g. pages: "1-{MAX_PDF_PAGES_PER_CALL}").'
            )
        pages = (1, max(total, 1))
    first, last = pages
    if total == 0:
        return PdfText(0, 0, 0, "")
    if first > total:
        raise MediaError(f"This PDF has {total} pages; page {first} does not exist.")
    last = min(last, total)
    parts: list[str] = []
    for number in range(first, last + 1):
        try:
            text = reader.pages[number - 1].extract_text() or ""
        except Exception as exc:  # pypdf raises many types for damaged pages
            text = f"[page could not be extracted: {exc}]"
        parts.append(f"--- Page {number} ---\n{text.strip() or '[no extractable text]'}")
    return PdfText(total, first, last, "\n\n".join(parts))


def _join(source: Any) -> str:
    if isinstance(source, list):
        return "".join(str(s) for s in source)
    return str(source) if source is not None else ""


def _cap(text: str) -> str:
    if len(text) <= MAX_NOTEBOOK_OUTPUT_CHARS:
        return text
    return text[:MAX_NOTEBOOK_OUTPUT_CHARS] + "\n… [output truncated]"


def notebook_blocks(raw: bytes) -> list[dict[str, Any]]:
    """A notebook cell by cell as text blocks, its image outputs as image blocks."""
    try:
        nb = json.loads(raw)
        cells = nb["cells"]
        if not isinstance(cells, list):
            raise TypeError("cells is not a list")
    except (ValueError, KeyError, TypeError) as exc:
        raise MediaError(f"This .ipynb file is not a valid notebook: {exc}") from None
    except RecursionError:
        raise MediaError("This .ipynb file is nested too deeply to read.") from None
    language = str(nb.get("metadata", {}).get("language_info", {}).get("name", "python"))
    blocks: list[dict[str, Any]] = []
    text: list[str] = []
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            continue
        kind = str(cell.get("cell_type", "code"))
        cell_id = str(cell.get("id") or f"cell-{index}")
        head = f'<cell id="{cell_id}" type="{kind}"'
        if kind == "code":
            head += f' language="{language}"'
            if cell.get("execution_count") is not None:
                head += f' execution_count="{cell["execution_count"]}"'
        text.append(f"{head}>\n{_join(cell.get('source'))}\n</cell>")
        for output in cell.get("outputs", []) if kind == "code" else []:
            if not isinstance(output, dict):
                continue
            rendered, images = _render_output(output)
            if rendered:
                text.append(f'<output cell="{cell_id}">\n{_cap(rendered)}\n</output>')
            for image in images:
                blocks.append({"type": "text", "text": "\n\n".join(text)})
                text = []
                blocks.append(image)
    if text or not blocks:
        blocks.append({"type": "text", "text": "\n\n".join(text) or "(notebook has no cells)"})
    return blocks


def _render_output(output: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    kind = output.get("output_type")
    images: list[dict[str, Any]] = []
    if kind == "stream":
        return _join(output.get("text")), images
    if kind == "error":
        trace = "\n".join(_ANSI.sub("", str(line)) for line in output.get("traceback", []))
        return trace or f"{output.get('ename')}: {output.get('evalue')}", images
    data = output.get("data", {})
    if not isinstance(data, dict):
        return "", images
    for media_type in ("image/png", "image/jpeg"):
        if media_type in data:
            try:
                raw = base64.b64decode(_join(data[media_type]))
            except ValueError:
                continue
            if len(raw) <= MAX_IMAGE_BYTES:
                images.append(image_block(raw, media_type))
    return _join(data.get("text/plain", "")), images
