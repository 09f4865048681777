"""pytest fixtures: `fake_api` (a started FakeAPI, stopped after the test) and `sdk_client`.

Use from a conftest.py: `from tests.fakeapi.fixture import fake_api, sdk_client  # noqa: F401`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from tests.fakeapi.server import FakeAPI


@pytest.fixture
def fake_api() -> Iterator[FakeAPI]:
    fake = FakeAPI().start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture
async def sdk_client(fake_api: FakeAPI) -> AsyncIterator[Any]:
    """A real AsyncAnthropic pointed at the fake, retrying at most twice."""
    from anthropic import AsyncAnthropic

    client = AsyncAnthropic(api_key="test-key", base_url=fake_api.url, max_retries=2)
    try:
        yield client
    finally:
        await client.close()
