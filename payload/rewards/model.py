"""A served reward model: SGLang's `/classify` route (sglang/srt/entrypoints/http_server.py,
0.5.23: "Handle a reward model request", body `EmbeddingReqInput`, the answer one
`{"embedding": [score], "meta_info": {...}}` per input), as SGLang serves a Bradley-Terry
sequence-classification model (`--is-embedding`; one label, so the "embedding" is the scalar).

    client = RewardModelClient.Config(url="http://reward-router:30000").build()
    client.score([prompt_ids + response_ids, ...])   # -> [float, ...], one per sequence

The caller sends token ids, so the server never re-tokenizes: they must be ids of the reward
model's own vocabulary (RewardPool sends the policy's prompt + response, so the job's reward
model shares the policy's tokenizer and chat template).

A generative judge (job rewards.model.kind judge) is asked on `/generate` instead:

    client.judge([prompt_text, ...], max_new_tokens=512, max_score=10)   # -> [0..1, ...]
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass

import httpx

# The variable that gives rollout workers and verifiers the reward tier's address (the chart's
# Service, or the local launcher's loopback server) when job.rewards.model has no url.
REWARD_URL_ENV = "RL_REWARD_URL"


class RewardModelError(RuntimeError):
    """The reward server answered something that is not one score per sequence (charged to the group)."""


class RewardModelUnavailable(RewardModelError):
    """The reward server could not be reached or failed (5xx) every attempt: not the group's
    fault, so it is handed back uncharged, like a rollout server outage."""


def classify_body(sequences: list[list[int]]) -> dict:
    """The `/classify` body: EmbeddingReqInput's batch form of `input_ids`."""
    return {"input_ids": [list(map(int, s)) for s in sequences]}


# A judge's verdict line: "Score: 7", "score: 7.5", "**Score:** 7".
_SCORE = re.compile(r"score\W{0,4}\s*(\d+(?:\.\d+)?)", re.IGNORECASE)


def judge_body(prompts: list[str], max_new_tokens: int) -> dict:
    """The `/generate` body (GenerateReqInput's batch form of `text`): greedy, so a group's
    grades do not depend on the judge's sampling."""
    return {"text": list(prompts), "sampling_params": {"temperature": 0.0, "max_new_tokens": max_new_tokens}}


class RewardModelClient:
    @dataclass
    class Config:
        url: str
        timeout_s: float = 120.0
        # Connection errors and 5xx are retried (a reward replica restarting) with backoff.
        max_attempts: int = 3
        backoff_s: float = 1.0

        def build(self) -> "RewardModelClient":
            return RewardModelClient(self)

    def __init__(self, config: Config) -> None:
        self.config = config
        self.url = config.url.rstrip("/")
        self._http = httpx.Client(timeout=config.timeout_s)

    def score(self, sequences: list[list[int]]) -> list[float]:
        if not sequences:
            return []
        items = self._results(classify_body(sequences), "/classify", len(sequences), "reward model")
        scores = []
        for item in items:
            embedding = item.get("embedding") if isinstance(item, dict) else None
            if not isinstance(embedding, list) or len(embedding) != 1 or not math.isfinite(float(embedding[0])):
                raise RewardModelError(f"reward model {self.url}: not one finite score: {str(item)[:200]}")
            scores.append(float(embedding[0]))
        return scores

    def judge(self, prompts: list[str], max_new_tokens: int, max_score: float) -> list[float]:
        """A generative judge's grades: each prompt answered greedily on /generate, its last
        "Score: N" divided by `max_score`; a reply without one, or out of [0, max_score], is an
        error (charged to the group), never a 0."""
        if not prompts:
            return []
        items = self._results(judge_body(prompts, max_new_tokens), "/generate", len(prompts), "judge")
        scores = []
        for item in items:
            text = item.get("text") if isinstance(item, dict) else None
            found = _SCORE.findall(text) if isinstance(text, str) else []
            if not found or not 0 <= float(found[-1]) <= max_score:
                raise RewardModelError(f"judge {self.url}: no 'Score: N' within [0, {max_score:g}] in {str(text)[-200:]!r}")
            scores.append(float(found[-1]) / max_score)
        return scores

    def _results(self, body: dict, route: str, count: int, what: str) -> list:
        """The server's list of `count` results for one batched request; any other answer is an
        error naming the server (`what`: "reward model" or "judge")."""
        response = self._post(body, route)
        if response.status_code != 200:
            raise RewardModelError(f"{what} {self.url}: HTTP {response.status_code}: {response.text[:200]}")
        items = response.json()
        if not isinstance(items, list) or len(items) != count:
            raise RewardModelError(f"{what} {self.url}: expected {count} results, got {str(items)[:200]}")
        return items

    def _post(self, body: dict, route: str) -> httpx.Response:
        config = self.config
        for attempt in range(1, config.max_attempts + 1):
            try:
                response = self._http.post(f"{self.url}{route}", json=body)
                if response.status_code < 500:
                    return response
                failure = f"HTTP {response.status_code}: {response.text[:200]}"
            except httpx.HTTPError as exc:
                failure = f"{type(exc).__name__}: {exc}"
            if attempt < config.max_attempts:
                time.sleep(config.backoff_s * 2 ** (attempt - 1))
        raise RewardModelUnavailable(f"reward model {self.url}: {failure} ({config.max_attempts} attempts)")

    def close(self) -> None:
        self._http.close()
