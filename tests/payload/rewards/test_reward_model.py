"""A served reward model on loopback: the tiny Bradley-Terry model behind SGLang's /classify
route (payload/rewards/model_server.py), scored through the client the rollout side uses."""

from __future__ import annotations

import threading

import pytest
import torch
import uvicorn

from payload.model import Qwen3MoeForCausalLM, load_pretrained, save_pretrained, tiny_config
from payload.rewards.model import RewardModelClient, RewardModelError
from payload.rewards.model_server import TinyRewardModel, build_app
from tests.payload.queue.redis_server import free_port

SCORE_TOKEN = 7


@pytest.fixture(scope="module")
def reward_server(tmp_path_factory):
    path = tmp_path_factory.mktemp("reward-model")
    torch.manual_seed(3)
    save_pretrained(Qwen3MoeForCausalLM(tiny_config()), path)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(build_app(TinyRewardModel(path, SCORE_TOKEN)), host="127.0.0.1", port=port,
                                           log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.05)
    yield path, f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def test_a_batch_is_scored_in_order_by_the_model(reward_server):
    path, url = reward_server
    batch = [[1, 2, 3, 4], [5, 6], [9, 8, 7, 6, 5], [1, 2, 3, 4]]
    scores = RewardModelClient.Config(url=url).build().score(batch)
    # The score head applied to the last token's state: the full forward's logit of the score token.
    model = load_pretrained(path).eval()
    with torch.no_grad():
        expected = [float(model(torch.tensor([ids])).logits[0, -1, SCORE_TOKEN]) for ids in batch]
    assert scores == pytest.approx(expected, abs=1e-5)
    assert scores[0] == scores[3] and len(set(scores[:3])) == 3


def test_a_bad_answer_is_an_error_never_a_score(reward_server):
    _, url = reward_server
    with pytest.raises(RewardModelError, match="HTTP 400"):
        RewardModelClient.Config(url=url).build().score([[]])
    with pytest.raises(RewardModelError, match="reward model http://127.0.0.1:1"):
        RewardModelClient.Config(url="http://127.0.0.1:1", timeout_s=2).build().score([[1]])
