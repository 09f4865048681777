"""A fake of the Anthropic Messages API on loopback, for tests of the real SDK and the real CLI.

In-process: `FakeAPI(...)` (or the `fake_api` pytest fixture from tests.fakeapi.fixture).
Out of process: `python -m tests.fakeapi --port 0 --script FILE [--requests-log FILE]`.
"""

from tests.fakeapi.server import FakeAPI, RecordedRequest

__all__ = ["FakeAPI", "RecordedRequest"]
