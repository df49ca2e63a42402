import pytest

from tests.payload.queue.redis_server import started
from tests.payload.rollout.helpers import ServeProcess, save_tiny_model


@pytest.fixture(scope="session")
def redis_server():
    server = started()
    yield server
    server.close()


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory):
    """Two tiny Qwen3-MoE checkpoints with different weights (HF layout on disk)."""
    root = tmp_path_factory.mktemp("models")
    return save_tiny_model(root / "a", seed=0), save_tiny_model(root / "b", seed=1)


@pytest.fixture(scope="session")
def served_tiny(tiny_models):
    """`serve --engine local` on tiny model a (tests that change its weights restore them)."""
    process = ServeProcess(tiny_models[0], "--poll-s", "0.5").start()
    yield process
    process.stop()
