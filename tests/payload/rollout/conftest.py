import pytest

from tests.payload.queue.redis_server import MISSING_REASON, REDIS_SERVER, RedisServer
from tests.payload.rollout.helpers import save_tiny_model


@pytest.fixture(scope="session")
def redis_server():
    if REDIS_SERVER is None:
        pytest.skip(MISSING_REASON)
    server = RedisServer().start()
    yield server
    server.close()


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory):
    """Two tiny Qwen3-MoE checkpoints with different weights (HF layout on disk)."""
    root = tmp_path_factory.mktemp("models")
    return save_tiny_model(root / "a", seed=0), save_tiny_model(root / "b", seed=1)
