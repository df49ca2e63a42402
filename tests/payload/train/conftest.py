import pytest

from train_dist_pool import GlooPool


@pytest.fixture(scope="session")
def gloo_pool():
    """Two gloo ranks shared by every distributed trainer test (spawned once)."""
    pool = GlooPool(world_size=2)
    yield pool
    pool.close()
