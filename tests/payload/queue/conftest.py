import pytest

from tests.payload.queue.redis_server import MISSING_REASON, REDIS_SERVER, RedisServer


@pytest.fixture(scope="session")
def redis_server():
    if REDIS_SERVER is None:
        pytest.skip(MISSING_REASON)
    server = RedisServer().start()
    yield server
    server.close()
