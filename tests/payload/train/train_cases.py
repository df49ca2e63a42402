"""Shared problems for the distributed trainer tests: a tiny Qwen3-MoE, seeded batches."""

from __future__ import annotations

import torch

from payload.model import Qwen3MoeForCausalLM, tiny_config
from payload.train.advantages import group_advantages
from payload.train.batch import Sample

GROUP_SIZE = 4


def tiny_model(seed: int = 0, **changes) -> Qwen3MoeForCausalLM:
    torch.manual_seed(seed)
    return Qwen3MoeForCausalLM(tiny_config(**changes))


def batch(step: int, prompts: int = 3, vocab: int = 256) -> list[Sample]:
    g = torch.Generator().manual_seed(1000 + step)
    samples = []
    for _ in range(prompts):
        prompt = torch.randint(1, vocab, (int(torch.randint(2, 6, (1,), generator=g)),), generator=g).tolist()
        for _ in range(GROUP_SIZE):
            n = int(torch.randint(1, 7, (1,), generator=g))
            response = torch.randint(1, vocab, (n,), generator=g).tolist()
            logprobs = (-torch.rand(n, generator=g) * 6).tolist()
            samples.append(Sample(prompt, response, logprobs, float(torch.rand(1, generator=g))))
    rewards = torch.tensor([s.reward for s in samples])
    for s, a in zip(samples, group_advantages(rewards, GROUP_SIZE).tolist()):
        s.advantage = a
    return samples
