"""The TUI reads the settings files once (issue 13): make_config loads them for the first frame,
the session is built from that same load, and the live watch takes it as its baseline. Counted at
the file system: every `open` of a settings file during a real start (real make_config, the real
composition root against the HTTP fake, the real watch) is seen by an audit hook."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from app import compose_tui
from app.cli import parse_args
from app.permissions.trust import set_trusted
from app.tui.app import LatheApp
from tests.support.engine import fake_env
from tests.tui.conftest import SIZE

pytestmark = pytest.mark.timeout(60)

OPENS: Counter[str] = Counter()
WATCHED: set[str] = set()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and args and str(args[0]) in WATCHED:
        OPENS[str(args[0])] += 1


sys.addaudithook(_audit)  # audit hooks cannot be removed: it counts only the paths WATCHED


async def until(condition: Any, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_a_tui_start_reads_each_settings_file_once(
    fake_api: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".git").mkdir()
    user = Path.home() / ".config" / "lathe" / "settings.toml"
    user.parent.mkdir(parents=True)
    user.write_text('theme = "lathe-steel"\n')
    shared = project / ".lathe" / "settings.toml"
    shared.parent.mkdir()
    shared.write_text('[permissions]\nallow = ["Read"]\n')
    for key, value in fake_env(fake_api).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    set_trusted(project)
    opts = parse_args([])
    files = compose_tui.TuiSettings(
        project, compose_tui.cli_overrides(compose_tui.engine_options(opts), strict=False)
    )
    WATCHED.clear()
    WATCHED.update({str(user), str(shared)})
    OPENS.clear()
    try:
        config = compose_tui.make_config(opts, project, files)
        assert config.theme == "lathe-steel"

        async def factory(sink: Any) -> Any:
            return await compose_tui.build_session(opts, sink, files)

        app = LatheApp(config, session_factory=factory)
        async with app.run_test(size=SIZE):
            await until(lambda: app.session is not None)
            watch = config.settings_watch
            assert isinstance(watch, compose_tui.FileSettingsWatch)
            await until(lambda: watch.reloader.state is not None)
            # The session has the rules of that one load.
            assert "Read" in app.session.describe_permissions()
            assert {str(user): 1, str(shared): 1} == OPENS
            # A change is read (once more), and becomes what a /resume would build from.
            shared.write_text('[permissions]\nallow = ["Read", "Glob"]\n')
            await until(lambda: OPENS[str(shared)] >= 2, 20)
            await until(lambda: files.loaded is watch.reloader.loaded)
    finally:
        WATCHED.clear()
