import pytest

from tests.payload.queue.redis_server import started


@pytest.fixture(scope="session")
def redis_server():
    server = started()
    yield server
    server.close()
