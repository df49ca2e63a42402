"""A served reward model: SGLang's `/classify` route (sglang/srt/entrypoints/http_server.py,
0.5.23: "Handle a reward model request", body `EmbeddingReqInput`, the answer one
`{"embedding": [score], "meta_info": {...}}` per input), as SGLang serves a Bradley-Terry
sequence-classification model (`--is-embedding`; one label, so the "embedding" is the scalar).

    client = RewardModelClient.Config(url="http://reward-router:30000").build()
    client.score([prompt_ids + response_ids, ...])   # -> [float, ...], one per sequence

The caller tokenizes with the reward model's own tokenizer and chat template (the policy's may
differ); the request carries token ids, so the server never re-tokenizes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import httpx


class RewardModelError(RuntimeError):
    """The reward server failed or answered something that is not one score per sequence."""


def classify_body(sequences: list[list[int]]) -> dict:
    """The `/classify` body: EmbeddingReqInput's batch form of `input_ids`."""
    return {"input_ids": [list(map(int, s)) for s in sequences]}


class RewardModelClient:
    @dataclass
    class Config:
        url: str
        timeout_s: float = 120.0

        def build(self) -> "RewardModelClient":
            return RewardModelClient(self)

    def __init__(self, config: Config) -> None:
        self.url = config.url.rstrip("/")
        self._http = httpx.Client(timeout=config.timeout_s)

    def score(self, sequences: list[list[int]]) -> list[float]:
        if not sequences:
            return []
        try:
            response = self._http.post(f"{self.url}/classify", json=classify_body(sequences))
        except httpx.HTTPError as exc:
            raise RewardModelError(f"reward model {self.url}: {exc}") from exc
        if response.status_code != 200:
            raise RewardModelError(f"reward model {self.url}: HTTP {response.status_code}: {response.text[:200]}")
        items = response.json()
        if not isinstance(items, list) or len(items) != len(sequences):
            raise RewardModelError(f"reward model {self.url}: expected {len(sequences)} results, got {str(items)[:200]}")
        scores = []
        for item in items:
            embedding = item.get("embedding") if isinstance(item, dict) else None
            if not isinstance(embedding, list) or len(embedding) != 1 or not math.isfinite(float(embedding[0])):
                raise RewardModelError(f"reward model {self.url}: not one finite score: {str(item)[:200]}")
            scores.append(float(embedding[0]))
        return scores

    def close(self) -> None:
        self._http.close()
