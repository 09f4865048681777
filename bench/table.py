"""The row type every benchmark returns and the table printer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    """One measured figure. `ok` is None for figures reported without a target."""

    area: str
    name: str
    measured: str
    target: str
    ok: bool | None


def print_table(rows: list[Row]) -> None:
    headers = ("area", "benchmark", "measured", "target", "verdict")
    cells = [
        (
            r.area,
            r.name,
            r.measured,
            r.target,
            "-" if r.ok is None else ("PASS" if r.ok else "FAIL"),
        )
        for r in rows
    ]
    widths = [
        max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(headers)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    print(line)
    print("  ".join("-" * w for w in widths))
    for c in cells:
        print("  ".join(v.ljust(w) for v, w in zip(c, widths, strict=True)))
