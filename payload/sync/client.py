"""SGLang's native weight-update HTTP API, as one rollout server sees it.

Field names and semantics follow sglang/srt/managers/io_struct.py of the pinned release (0.5.23):
InitWeightsUpdateGroupReqInput, BeginWeightUpdateReqInput / EndWeightUpdateReqInput (0.5.23
refuses update_weights_from_distributed outside such a session), UpdateWeightsFromDistributedReqInput
(with load_format "flattened_bucket": one broadcast per bucket), UpdateWeightFromDiskReqInput,
PauseGenerationReqInput. Every endpoint answers
`{"success": bool, "message": str}` (HTTP 400 on failure) except pause/continue/flush.
The embedded engine serves the same routes, so this client is the only one the trainer has.
"""

from __future__ import annotations

from typing import Any, Literal

import httpx

PauseMode = Literal["abort", "retract", "in_place"]


class RolloutServerError(RuntimeError):
    """A rollout server refused or failed a weight-update call."""


class RolloutServerClient:
    def __init__(self, url: str, timeout_s: float = 600.0):
        self.url = url.rstrip("/")
        # Weight updates block until every byte is received; the timeout bounds a dead peer.
        self._http = httpx.Client(base_url=self.url, timeout=httpx.Timeout(timeout_s, connect=10.0))

    def close(self) -> None:
        self._http.close()

    def _post(self, route: str, body: dict[str, Any] | None = None, timeout_s: float | None = None) -> dict[str, Any]:
        """`timeout_s`: this call's own limit (the publisher's deadlines), else the client's."""
        try:
            response = self._http.post(route, json=body or {},
                                       timeout=httpx.USE_CLIENT_DEFAULT if timeout_s is None else max(timeout_s, 1e-3))
        except httpx.HTTPError as exc:
            raise RolloutServerError(f"{self.url}{route}: {type(exc).__name__}: {exc}") from exc
        try:
            payload = response.json()
        except ValueError:
            payload = {"success": response.is_success, "message": response.text}
        if isinstance(payload, dict) and payload.get("success") is False or not response.is_success:
            message = payload.get("message", response.text) if isinstance(payload, dict) else response.text
            raise RolloutServerError(f"{self.url}{route}: HTTP {response.status_code}: {message}")
        return payload if isinstance(payload, dict) else {"result": payload}

    def init_weights_update_group(
        self, *, master_address: str, master_port: int, rank_offset: int, world_size: int, group_name: str, backend: str,
        timeout_s: float | None = None,
    ) -> None:
        self._post(
            "/init_weights_update_group",
            dict(
                master_address=master_address,
                master_port=master_port,
                rank_offset=rank_offset,
                world_size=world_size,
                group_name=group_name,
                backend=backend,
            ),
            timeout_s,
        )

    def begin_weight_update(self, timeout_s: float | None = None) -> None:
        self._post("/begin_weight_update", {}, timeout_s)

    def end_weight_update(self, timeout_s: float | None = None) -> None:
        self._post("/end_weight_update", {}, timeout_s)

    def destroy_weights_update_group(self, group_name: str) -> None:
        self._post("/destroy_weights_update_group", {"group_name": group_name})

    def update_weights_from_distributed(
        self,
        *,
        names: list[str],
        dtypes: list[str],
        shapes: list[list[int]],
        group_name: str,
        flush_cache: bool,
        weight_version: str | None,
        load_format: str | None = None,
        timeout_s: float | None = None,
    ) -> None:
        body: dict[str, Any] = dict(names=names, dtypes=dtypes, shapes=shapes, group_name=group_name, flush_cache=flush_cache)
        if load_format is not None:
            body["load_format"] = load_format
        if weight_version is not None:
            body["weight_version"] = weight_version
        self._post("/update_weights_from_distributed", body, timeout_s)

    def update_weights_from_disk(self, *, model_path: str, weight_version: str) -> None:
        self._post("/update_weights_from_disk", {"model_path": model_path, "weight_version": weight_version})

    def pause_generation(self, mode: PauseMode, timeout_s: float | None = None) -> None:
        self._post("/pause_generation", {"mode": mode}, timeout_s)

    def continue_generation(self, timeout_s: float | None = None) -> None:
        self._post("/continue_generation", None, timeout_s)

    def flush_cache(self) -> None:
        self._post("/flush_cache")

    def generate_greedy(self, input_ids: list[int], max_new_tokens: int) -> tuple[list[int], list[float]]:
        """Decode `max_new_tokens` greedily (EOS ignored); the tokens and their logprobs
        (SGLang's /generate with return_logprob: meta_info.output_token_logprobs)."""
        body = {"input_ids": input_ids, "return_logprob": True,
                "sampling_params": {"temperature": 0, "max_new_tokens": max_new_tokens, "ignore_eos": True}}
        answer = self._post("/generate", body)
        try:
            entries = answer["meta_info"]["output_token_logprobs"]
            return [int(e[1]) for e in entries], [float(e[0]) for e in entries]
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise RolloutServerError(f"{self.url}/generate: no output_token_logprobs in the answer: {exc}") from exc

    def score(self, input_ids: list[int], start: int, timeout_s: float = 30.0) -> list[float]:
        """log p(token t | tokens < t) for t = start..len-1, as the server computes it: SGLang's
        /generate with max_new_tokens 0, return_logprob and logprob_start_len (the prefill's
        meta_info.input_token_logprobs; the entry of token 0, if asked for, is None)."""
        body = {"input_ids": input_ids, "return_logprob": True, "logprob_start_len": start,
                "sampling_params": {"temperature": 0, "max_new_tokens": 0}}
        try:
            response = self._http.post("/generate", json=body, timeout=timeout_s)
        except httpx.HTTPError as exc:
            raise RolloutServerError(f"{self.url}/generate: {type(exc).__name__}: {exc}") from exc
        if not response.is_success:
            raise RolloutServerError(f"{self.url}/generate: HTTP {response.status_code}: {response.text[:300]}")
        try:
            entries = response.json()["meta_info"]["input_token_logprobs"]
            return [float(e[0]) for e in entries if e[0] is not None]
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise RolloutServerError(f"{self.url}/generate: no input_token_logprobs in the answer: {exc}") from exc

    def weight_version(self, timeout_s: float = 10.0) -> str:
        """The version the server is serving. SGLang moved it from /get_model_info to /model_info."""
        for route in ("/model_info", "/get_model_info"):
            try:
                response = self._http.get(route, timeout=timeout_s)
            except httpx.HTTPError as exc:
                raise RolloutServerError(f"{self.url}{route}: {type(exc).__name__}: {exc}") from exc
            if response.status_code == 404:
                continue
            if not response.is_success:
                raise RolloutServerError(f"{self.url}{route}: HTTP {response.status_code}: {response.text}")
            return str(response.json().get("weight_version"))
        raise RolloutServerError(f"{self.url}: neither /model_info nor /get_model_info is served")
