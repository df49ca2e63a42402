"""A tiny Bradley-Terry reward model behind SGLang's `/classify` route, for local runs and CI
(on the cluster SGLang serves the real one: payload/rewards/model.py is the client of both).

The model is the payload's Qwen3-MoE trunk with a one-label score head, as Hugging Face's
`*ForSequenceClassification` models are: the score of a sequence is the head applied to the
final hidden state of its last token. Here the head is the LM head's row of `score_token_id`
(the same [1, hidden] shape), so any policy checkpoint is a reward model without a new file.
Answers as SGLang does: one `{"embedding": [score], "meta_info": {...}}` per input, in order.
"""

from __future__ import annotations

import threading
from pathlib import Path

import torch
from fastapi import FastAPI
from fastapi.responses import JSONResponse

from payload.model import load_pretrained


class TinyRewardModel:
    def __init__(self, model_path: Path, score_token_id: int = 0) -> None:
        self.model = load_pretrained(model_path).eval()
        if not 0 <= score_token_id < self.model.config.vocab_size:
            raise ValueError(f"score_token_id={score_token_id}: not in [0, {self.model.config.vocab_size})")
        self.score_token_id = score_token_id
        self._lock = threading.Lock()

    @torch.no_grad()
    def score(self, sequences: list[list[int]]) -> list[float]:
        scores = []
        with self._lock:
            for ids in sequences:  # one at a time: no padding to get wrong, and CI batches are small
                logits = self.model(torch.tensor([ids]), logits_to_keep=1).logits
                scores.append(float(logits[0, -1, self.score_token_id]))
        return scores


def build_app(model: TinyRewardModel) -> FastAPI:
    app = FastAPI()

    @app.get("/health")
    def health() -> dict:
        return {}

    @app.post("/classify")
    def classify(body: dict):
        ids = body.get("input_ids")
        single = bool(ids) and all(isinstance(i, int) for i in ids)
        if single:
            ids = [ids]  # one sequence, as EmbeddingReqInput allows: answered with one object
        if not ids or not all(isinstance(s, list) and s and all(isinstance(i, int) for i in s) for s in ids):
            return JSONResponse({"error": {"message": "input_ids: a list of token ids or of such lists"}}, status_code=400)
        scores = model.score(ids)
        results = [{"embedding": [s], "meta_info": {"prompt_tokens": len(i)}} for s, i in zip(scores, ids)]
        return results[0] if single else results

    return app
