from tests.fakeapi.fixture import fake_api, sdk_client

__all__ = ["fake_api", "sdk_client"]
