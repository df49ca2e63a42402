"""The check after every publish: do the servers compute what the trainer computes?

A silent bad sync (experts loaded under the wrong ids, a tensor cast or sliced wrongly) is worse
than a slow one: rollouts keep flowing and training goes off the rails. After each publish every
server that took part decodes a fixed prompt greedily with logprobs (`/generate`, return_logprob);
the trainer computes the logprobs of the same tokens with its own weights (one forward of
prompt_tokens + new_tokens, every rank: it is a collective under FSDP/EP) and a server whose mean
absolute difference exceeds `tolerance` is reported, and rolled back to the last export by the
caller. Both sides run bf16 kernels of their own, so a correct sync differs by rounding
(~1e-2 nats); a corrupted one by whole nats. Cost: ~24 tokens decoded per server and one
forward of a few sequences on the trainer, well under a second.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import torch
import torch.distributed as dist

from payload.sync.client import RolloutServerClient, RolloutServerError


@dataclass(frozen=True)
class Mismatch:
    url: str
    mean_abs_diff: float  # inf when the server did not answer the probe

    def __str__(self) -> str:
        return f"{self.url}: mean |logprob difference| {self.mean_abs_diff:.3f} nats"


class PublishProbe:
    @dataclass
    class Config:
        prompt_tokens: int = 16
        new_tokens: int = 8
        # Mean absolute logprob difference (nats) above which a server's weights are wrong.
        tolerance: float = 0.1
        seed: int = 0

        def build(self, vocab_size: int) -> "PublishProbe":
            return PublishProbe(self, vocab_size)

    def __init__(self, config: Config, vocab_size: int) -> None:
        self.config = config
        g = torch.Generator().manual_seed(config.seed)
        self.prompt = torch.randint(0, vocab_size, (config.prompt_tokens,), generator=g).tolist()

    def ask(self, clients: list[RolloutServerClient]) -> dict[str, tuple[list[int], list[float] | None]]:
        """Rank 0: each server's greedy continuation and its logprobs (None: no answer)."""
        def one(c: RolloutServerClient):
            try:
                return c.generate_greedy(self.prompt, self.config.new_tokens)
            except RolloutServerError:
                return [], None

        with ThreadPoolExecutor(max_workers=max(1, len(clients))) as pool:
            return dict(zip([c.url for c in clients], pool.map(one, clients)))

    @torch.no_grad()
    def mismatches(self, answers: dict, model, device: torch.device, group: dist.ProcessGroup | None) -> list[Mismatch]:
        """Every rank (collective): rank 0's `answers` are broadcast over `group` (a CPU
        group: rank 0 may have waited on HTTP), each distinct continuation is scored by the
        trainer's model, and the servers off by more than the tolerance are returned."""
        from payload.model import compute_logprobs

        box = [answers]
        if group is not None:
            dist.broadcast_object_list(box, src=0, group=group)
        answers = box[0]
        scored = {}
        for ids in sorted({tuple(ids) for ids, logprobs in answers.values() if logprobs is not None and ids}):
            tokens = torch.tensor([self.prompt + list(ids)], device=device)
            logprobs, _ = compute_logprobs(model, tokens)
            scored[ids] = logprobs[0, len(self.prompt) - 1 :].float().cpu()
        out = []
        for url, (ids, logprobs) in answers.items():
            if logprobs is None or not ids:
                out.append(Mismatch(url, float("inf")))
                continue
            diff = (scored[tuple(ids)] - torch.tensor(logprobs, dtype=torch.float32)).abs().mean().item()
            if diff > self.config.tolerance:
                out.append(Mismatch(url, diff))
        return out
