"""Generation through SGLang's native `/generate` (a server, the router, or the embedded engine).

One request per group: `input_ids` is the prompt repeated G times, so the server batches the
G samples and shares the prompt's prefix cache. Fields follow sglang/srt/managers/io_struct.py
(GenerateReqInput) and the response the tokenizer manager builds:

    {"text", "output_ids", "meta_info": {"finish_reason": {"type": "stop"|"length"|"abort", ...},
     "output_token_logprobs": [[logprob, token_id, text|null], ...], "weight_version",
     "weight_versions": [{"version", "start", "end"}, ...] (which version sampled which tokens),
     "routed_experts": base64 of int32 [prompt + output - 1, num_hidden_layers, top_k]}}

(sglang 0.5.23's srt/state_capturer: one row per decoder layer, MoE or not; the client keeps
the MoE layers' rows, the ones the trainer replays.)

Failures are sorted by whose fault they are. The server's (connection refused, timeout,
HTTP 5xx/429, a body that is not that shape, a connection reset mid-request): retried with
exponential backoff and full jitter, then `ServerUnavailable`: the caller hands the task back
without charging it an attempt, unless the server was reached on every attempt and still
generates for other requests (`generates()`: /health_generate, a one-token generation, on a
fresh connection): then the prompt is the cause (a 500 or a dropped connection on this input
only) and the caller charges it. The request's (HTTP 4xx, e.g. a prompt longer than the context): `RequestRejected`,
not retried, charged to the task so a poison prompt ends in the dead-letter stream.
Samples the server aborted (a weight update in `abort` mode) are generated again.
"""

from __future__ import annotations

import base64
import logging
import random
import threading
import time
from dataclasses import dataclass, field

import httpx
import numpy as np

log = logging.getLogger(__name__)

# The model gateway's sticky-session header (sglang-router 0.3.2, `--policy manual`: a key is
# assigned a worker once and keeps it while that worker is healthy; requests without it are
# spread at random). k8s/charts/router.py runs that policy.
ROUTING_KEY_HEADER = "X-SMG-Routing-Key"


class GenerationError(RuntimeError):
    pass


class ServerUnavailable(GenerationError):
    """The rollout server did not answer usefully after every retry."""

    def __init__(self, message: str, answered: bool = False) -> None:
        super().__init__(message)
        # Every attempt reached the server (5xx, a malformed body, a connection it dropped mid-request).
        self.answered = answered


class RequestRejected(GenerationError):
    """The server refused the request itself (HTTP 4xx): retrying cannot help."""


class Stopped(GenerationError):
    """The caller's stop event was set while waiting to retry."""


class _Retryable(Exception):
    def __init__(self, message: str, answered: bool = True) -> None:
        super().__init__(message)
        self.answered = answered


@dataclass
class Generation:
    token_ids_T: np.ndarray
    logprobs_T: np.ndarray
    finish_reason: str
    text: str
    # The policy version of the generation's OLDEST token: a generation that spans a weight
    # publish is as stale as its first span (SGLang 0.5.23: meta_info.weight_versions, one
    # {version, start, end} per span in token order; meta_info.weight_version is the newest).
    weight_version: str
    routed_experts_SLK: np.ndarray | None = None
    # Which version sampled which output tokens: (version, start, end) spans in token order,
    # covering the output exactly (meta_info.weight_versions; one span of meta_info.weight_version
    # where the server reports none). Empty for an empty output.
    weight_spans: list[tuple[str, int, int]] = field(default_factory=list)


@dataclass
class SamplingParams:
    temperature: float = 1.0
    top_p: float = 1.0
    max_new_tokens: int = 1024
    stop_token_ids: list[int] = field(default_factory=list)

    def to_sglang(self) -> dict:
        params = {"temperature": self.temperature, "top_p": self.top_p, "max_new_tokens": self.max_new_tokens}
        if self.stop_token_ids:
            params["stop_token_ids"] = list(self.stop_token_ids)
        return params


class SGLangClient:
    @dataclass
    class Config:
        url: str = "http://localhost:30000"
        # One group of long reasoning samples can take minutes on a busy server.
        timeout_s: float = 900.0
        max_attempts: int = 5
        backoff_base_s: float = 0.5
        backoff_cap_s: float = 30.0
        return_routed_experts: bool = False
        # [num_hidden_layers, top_k] to reshape routed experts into; required with return_routed_experts.
        routed_experts_shape: tuple[int, int] | None = None
        # The MoE layers among them (the rows kept); None keeps every layer.
        routed_experts_layers: tuple[int, ...] | None = None

        def build(self) -> "SGLangClient":
            return SGLangClient(self)

    def __init__(self, config: Config) -> None:
        if config.return_routed_experts and config.routed_experts_shape is None:
            raise ValueError("return_routed_experts needs routed_experts_shape (num_hidden_layers, top_k)")
        self.config = config
        self.url = config.url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, timeout=httpx.Timeout(config.timeout_s, connect=10.0))
        self.retries = 0  # requests retried (read by the worker's metrics)

    def close(self) -> None:
        self._http.close()

    def generate(
        self, prompt_tokens_P: np.ndarray, n: int, sampling: SamplingParams, stop: threading.Event | None = None,
        session: str | None = None,
    ) -> list[Generation]:
        """`n` samples of the prompt, in order; aborted ones are generated again."""
        prompt = [int(t) for t in prompt_tokens_P]
        return self.generate_each([prompt] * n, sampling, stop, session)

    def generate_each(
        self, prompts: list[list[int]], sampling: SamplingParams | list[SamplingParams],
        stop: threading.Event | None = None, session: str | None = None,
    ) -> list[Generation]:
        """One sample of each prompt (one request, batched by the server), in order; aborted
        ones are generated again. `session` names the conversation(s) for the router: every
        request with the same key goes to the same server, whose radix cache still holds the
        earlier turns (sglang-router 0.3.2's `manual` policy reads the X-SMG-Routing-Key header)."""
        per_prompt = sampling if isinstance(sampling, list) else [sampling] * len(prompts)
        results: list[Generation | None] = [None] * len(prompts)
        attempt = 0
        answered = True
        while True:
            missing = [i for i, r in enumerate(results) if r is None]
            try:
                generations = self._generate_once([prompts[i] for i in missing], [per_prompt[i] for i in missing], session)
            except _Retryable as exc:
                attempt += 1
                answered = answered and exc.answered
                if attempt >= self.config.max_attempts:
                    raise ServerUnavailable(f"{self.url}/generate: {exc} (after {attempt} attempts)", answered) from None
                self._backoff(attempt, str(exc), stop)
                continue
            for i, generation in zip(missing, generations):
                if generation.finish_reason != "abort":
                    results[i] = generation
            if all(r is not None for r in results):
                return results  # type: ignore[return-value]
            attempt += 1
            if attempt >= self.config.max_attempts:
                raise ServerUnavailable(f"{self.url}/generate: samples still aborted after {attempt} attempts")
            self._backoff(attempt, "samples aborted by the server", stop)

    def generates(self) -> bool:
        """The server generates for a request of its own choosing (GET /health_generate, which
        SGLang, its router and the embedded engine serve): it is up and able to serve."""
        # A fresh connection, not the pool's: after an unhandled exception uvicorn answers 500 and
        # closes the connection, and a probe sent on that pooled connection would fail for it,
        # making a healthy server look down (and its poison prompt look like an outage).
        try:
            with httpx.Client(base_url=self.url, timeout=httpx.Timeout(min(self.config.timeout_s, 30.0),
                                                                       connect=10.0)) as fresh:
                return fresh.get("/health_generate").status_code == 200
        except httpx.HTTPError:
            return False

    def _backoff(self, attempt: int, why: str, stop: threading.Event | None) -> None:
        self.retries += 1
        # Full jitter: many workers retrying one restarted server spread out instead of stampeding.
        delay = random.uniform(0, min(self.config.backoff_cap_s, self.config.backoff_base_s * 2 ** (attempt - 1)))
        log.warning("generate retry %d in %.2f s: %s", attempt, delay, why)
        if stop is not None:
            if stop.wait(delay):
                raise Stopped("stopping while waiting to retry")
        else:
            time.sleep(delay)

    def _generate_once(self, prompts: list[list[int]], sampling: list[SamplingParams], session: str | None) -> list[Generation]:
        n = len(prompts)
        params = [p.to_sglang() for p in sampling]
        body = {
            "input_ids": prompts,
            # One dict for the batch when every prompt shares it (the server's common case).
            "sampling_params": params[0] if all(p == params[0] for p in params) else params,
            "return_logprob": True,
            # Logprobs of the output tokens only, not the prompt's.
            "logprob_start_len": -1,
        }
        if self.config.return_routed_experts:
            body["return_routed_experts"] = True
        headers = {ROUTING_KEY_HEADER: session} if session else None
        try:
            response = self._http.post("/generate", json=body, headers=headers)
        except (httpx.ConnectError, httpx.TimeoutException) as exc:  # not reached, or no answer in time
            raise _Retryable(f"{type(exc).__name__}: {exc}", answered=False) from None
        except httpx.TransportError as exc:
            # Reached, then the connection was reset or closed mid-request: what uvicorn does when
            # the handler raises after the response started (or a 500 it closes after). Counted as
            # an answer, so a server that still passes its health probe charges the prompt.
            raise _Retryable(f"{type(exc).__name__}: {exc}", answered=True) from None
        if response.status_code >= 500 or response.status_code in (408, 429):
            raise _Retryable(f"HTTP {response.status_code}: {response.text[:200]}")
        if response.status_code >= 400:
            raise RequestRejected(f"{self.url}/generate: HTTP {response.status_code}: {response.text[:500]}")
        try:
            items = response.json()
            if not isinstance(items, list) or len(items) != n:
                raise ValueError(f"expected a list of {n} results, got {type(items).__name__}")
            return [self._parse(item, len(prompt)) for item, prompt in zip(items, prompts)]
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise _Retryable(f"malformed response: {exc}") from None

    def _parse(self, item: dict, prompt_len: int) -> Generation:
        meta = item["meta_info"]
        output_ids = item["output_ids"]
        entries = meta["output_token_logprobs"]
        if len(entries) != len(output_ids):
            raise ValueError(f"{len(entries)} logprobs for {len(output_ids)} output tokens")
        if any(int(e[1]) != int(t) for e, t in zip(entries, output_ids)):
            raise ValueError("output_token_logprobs token ids differ from output_ids")
        finish = meta["finish_reason"]
        finish_type = finish["type"] if isinstance(finish, dict) else str(finish)
        if finish_type not in ("stop", "length", "abort"):
            raise ValueError(f"finish_reason {finish_type!r}")
        routed = None
        if self.config.return_routed_experts and finish_type != "abort":
            layers, top_k = self.config.routed_experts_shape
            flat = np.frombuffer(base64.b64decode(meta["routed_experts"]), dtype="<i4")
            routed = flat.reshape(prompt_len + len(output_ids) - 1, layers, top_k)
            if self.config.routed_experts_layers is not None:
                routed = routed[:, list(self.config.routed_experts_layers)]
        return Generation(
            token_ids_T=np.asarray(output_ids, dtype=np.int32),
            logprobs_T=np.asarray([float(e[0]) for e in entries], dtype=np.float32),
            finish_reason=finish_type,
            text=str(item.get("text", "")),
            weight_version=_oldest_weight_version(meta),
            routed_experts_SLK=routed,
            weight_spans=weight_spans(meta, len(output_ids)),
        )


def _oldest_weight_version(meta: dict) -> str:
    """meta_info.weight_versions[0].version where the server reports spans (SGLang 0.5.23's
    add_weight_versions_to_meta_info), else meta_info.weight_version (one span, or the
    embedded engine)."""
    spans = meta.get("weight_versions")
    if spans:
        return str(spans[0]["version"])
    return str(meta.get("weight_version", ""))



def weight_spans(meta: dict, num_output_tokens: int) -> list[tuple[str, int, int]]:
    """meta_info.weight_versions as (version, start, end) spans over the output tokens, checked to
    cover them exactly, back to back (SGLang 0.5.23's add_weight_versions_to_meta_info writes
    them so: compute_weight_version_spans starts each span where the last ended and clips the
    last to the output; a span that starts at 0 is kept even when empty). Without spans (a
    generation within one version, or the embedded engine's scoring path): one span of
    meta_info.weight_version. An empty span (an empty output) is dropped."""
    raw = meta.get("weight_versions")
    if not raw:
        raw = [{"version": meta.get("weight_version", ""), "start": 0, "end": num_output_tokens}]
    spans = [(str(s["version"]), int(s["start"]), int(s["end"])) for s in raw]
    spans = [s for s in spans if s[2] > s[1]]
    at = 0
    for _, start, end in spans:
        if start != at:
            raise ValueError(f"weight_versions {raw} do not cover the output tokens back to back")
        at = end
    if at != num_output_tokens:
        raise ValueError(f"weight_versions {raw} cover {at} output tokens, the output has {num_output_tokens}")
    return spans


def integer_spans(spans: list[tuple[str, int, int]]) -> tuple[tuple[int, int, int], ...] | None:
    """The spans with integer versions (what servers started by `serve` report: the trainer's
    step), or None where any is not one (a bare SGLang says "default")."""
    if not all(v.isdigit() for v, _, _ in spans):
        return None
    return tuple((int(v), a, b) for v, a, b in spans)
