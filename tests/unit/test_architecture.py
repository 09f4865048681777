"""DESIGN.md section 1's import rules, enforced with import-linter, and the fast paths of the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "broken" not in proc.stdout.lower() or " 0 broken" in proc.stdout.lower()


def test_version_and_help_import_neither_textual_nor_anthropic():
    code = (
        "import sys, io, contextlib\n"
        "from app.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--version']); main(['--help'])\n"
        "bad = [m for m in ('textual', 'anthropic', 'rich', 'pydantic') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_version_output():
    proc = subprocess.run(
        [sys.executable, "-m", "app", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("lathe ")


def test_usage_errors_exit_2():
    for args in (
        ["--output-format", "json"],
        ["--permission-mode", "yolo"],
        ["-p", "x", "--max-turns", "0"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "app", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.strip()


# Below every layer by their own contract ("import nothing of app"), or the package's entry.
_OUTSIDE_THE_LAYERS = {"__init__", "__main__", "debuglog", "jsonlimits"}


def test_every_top_level_app_module_is_in_a_layer():
    """A module in no layer is checked by no layers contract: with indirect imports allowed it
    could relay a front end to the engine's inside unseen (review round 3, defect 5). So every
    app/*.py and app/* package is named in the layers (or is one of the few below them all)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    [layers] = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    named = {
        part.strip(" ()").removeprefix("app.")
        for line in layers["layers"]
        for part in line.replace(":", "|").split("|")
    }
    app = ROOT / "app"
    modules = {p.stem for p in app.glob("*.py")} | {
        p.name for p in app.iterdir() if (p / "__init__.py").exists()
    }
    missing = sorted(modules - named - _OUTSIDE_THE_LAYERS)
    assert missing == [], f"app modules in no layer (pyproject.toml's layers): {missing}"
