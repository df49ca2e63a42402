"""The check after every publish: do the servers compute what the trainer computes?

A silent bad sync (experts loaded under the wrong ids, a tensor cast or sliced wrongly) is worse
than a slow one: rollouts keep flowing and training goes off the rails. So EVERY version is
checked, and the check never holds the trainer's next step:

    before the publish starts (every rank, collective: one forward under FSDP/EP/PP), the
        trainer scores a fixed token sequence (seeded: prompt_tokens + scored_tokens) with the
        weights it is about to send: `expected`, kept by rank 0 for that version;
    when the publish has settled (rank 0 alone, no collective), every server that took the
        version scores the same sequence (SGLang's /generate with max_new_tokens 0,
        return_logprob and logprob_start_len: meta_info.input_token_logprobs), and a server
        whose mean |difference| exceeds `tolerance` nats is wrong: `check`.

Teacher-forced, not greedy: the trainer's logprobs do not depend on what the server decodes,
so they are computed while the trainer still holds that version and compared after the next
step has moved its weights on. (The previous probe decoded greedily on the server and scored
the continuation on the trainer afterwards, which needs the version's weights, so it could run
only on versions the trainer waited for: one in five.)

Both sides run bf16 kernels of their own, so a correct sync differs by rounding (~1e-2 nats); a
corrupted one by whole nats. Cost per version: one trainer forward of 24 tokens (every rank,
between the step and the publish's start) and one 24-token prefill per server. Measured on CPU
with the tiny test model: see bench/README.md "publish probe"; at 235B on p5en-48 the trainer's
forward is bound by the FSDP parameter all-gather of one forward (the replica's 470 GB bf16 over
128 GPUs' NICs, ~1.3 s modelled as B / (128 x 3.2 GB/s) with the step's own all-gather rate;
not measured here) and a server prefill of 24 tokens is milliseconds.

What SGLang 0.5.23 offers besides, and why it is not the check: /weights_checker {"action":
"checksum"} (sglang/srt/utils/weight_checker.py `_compute_checksum`) hashes every parameter as
the server holds it: fused (qkv_proj, gate_up_proj), TP-sharded, expert-stacked (w13_weight) and
dequantized. The trainer cannot compute the same hashes without re-implementing each SGLang
weight loader, so it could only compare servers with each other, which misses a publish that is
wrong the same way everywhere. A wrong server is rolled back by the caller to the last good
export (payload/sync/fanout.py roll_back: /update_weights_from_disk).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import torch

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
        # Tokens after the prompt whose logprobs both sides compare.
        scored_tokens: int = 8
        # Mean absolute logprob difference (nats) above which a server's weights are wrong.
        tolerance: float = 0.1
        seed: int = 0
        timeout_s: float = 30.0

        def build(self, vocab_size: int) -> "PublishProbe":
            return PublishProbe(self, vocab_size)

    def __init__(self, config: Config, vocab_size: int) -> None:
        self.config = config
        g = torch.Generator().manual_seed(config.seed)
        self.tokens = torch.randint(0, vocab_size, (config.prompt_tokens + config.scored_tokens,), generator=g).tolist()

    @torch.no_grad()
    def expected(self, model, device: torch.device) -> torch.Tensor:
        """Every rank (collective under FSDP/EP/PP): the trainer's logprobs of the scored tokens."""
        from payload.model import compute_logprobs

        logprobs, _ = compute_logprobs(model, torch.tensor([self.tokens], device=device))
        return logprobs[0, self.config.prompt_tokens - 1 :].float().cpu()

    def ask(self, clients: list[RolloutServerClient]) -> dict[str, list[float] | None]:
        """Rank 0: each server's logprobs of the scored tokens (None: no answer)."""
        def one(c: RolloutServerClient):
            try:
                return c.score(self.tokens, self.config.prompt_tokens, timeout_s=self.config.timeout_s)
            except RolloutServerError:
                return None

        if not clients:
            return {}
        with ThreadPoolExecutor(max_workers=len(clients)) as pool:
            return dict(zip([c.url for c in clients], pool.map(one, clients)))

    def check(self, answers: dict[str, list[float] | None], expected: torch.Tensor) -> list[Mismatch]:
        """Rank 0: the servers off by more than the tolerance (or that did not answer)."""
        out = []
        for url, logprobs in answers.items():
            if logprobs is None or len(logprobs) != len(expected):
                out.append(Mismatch(url, float("inf")))
                continue
            diff = (expected - torch.tensor(logprobs, dtype=torch.float32)).abs().mean().item()
            if not diff <= self.config.tolerance:  # NaN is wrong too
                out.append(Mismatch(url, diff))
        return out
