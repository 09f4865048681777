from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.hooks.support import HookEnv, make_env


@pytest.fixture
def hk(tmp_path: Path) -> HookEnv:
    return make_env(tmp_path)
