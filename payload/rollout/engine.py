"""The embedded rollout engine: the payload's own Qwen3-MoE model, generating in batches with a
KV cache, with SGLang's semantics for everything the RL loop relies on.

    engine = Engine.Config(model_path="/tmp/tiny").build()
    [future] = engine.submit([[1, 2, 3]], [SamplingOptions(max_new_tokens=8)])
    completion = future.result()       # output_ids, logprobs, finish_reason, weight_version

Batching: one scheduler thread takes every waiting sequence (up to max_batch_size), left-pads
them into one batch, prefills once and decodes in lock-step, each sequence stopping on its own
stop token or length. Sequences that arrive meanwhile wait for the next batch (static
batching: simple, and enough for CPU tests and the laptop loop; SGLang is the fast path).

Logprobs are SGLang's default: log_softmax(logits / temperature) of the sampled token, before
top-p/top-k truncation (raw log_softmax at temperature 0), computed in fp32.

Pausing follows SGLang's `/pause_generation` modes, checked between decode steps:
`abort` finishes running sequences with finish_reason abort; `retract` puts them back in the
queue with what they generated so far, to be continued (re-prefilled) after
`/continue_generation`; `in_place` holds the batch as it is. Either way no new batch starts
until `continue_generation`. Weight updates take the model lock between decode steps, so
in_place (or no pause) in-flight sequences keep their KV and continue on the new weights, as in
SGLang. Like SGLang 0.5.23 (scheduler.record_weight_version_change, utils/weight_versions.py)
a version change marks every live sequence's output so far, and each completion reports
`weight_versions`: one {version, start, end} span of output tokens per version that sampled
them, in order (`weight_version` is the last span's).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import torch

log = logging.getLogger(__name__)

PauseMode = Literal["abort", "retract", "in_place"]

# Output-shaping options of SGLang's sampling params that do not change which tokens come out.
_TEXT_ONLY_OPTIONS = {"skip_special_tokens", "spaces_between_special_tokens", "no_stop_trim"}


class EngineError(ValueError):
    """A request or weight update the engine cannot serve (answered with HTTP 400)."""


@dataclass(frozen=True)
class SamplingOptions:
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    max_new_tokens: int = 128
    stop_token_ids: tuple[int, ...] = ()
    ignore_eos: bool = False

    @classmethod
    def from_sglang(cls, params: dict | None) -> "SamplingOptions":
        params = dict(params or {})
        for name in _TEXT_ONLY_OPTIONS:
            params.pop(name, None)
        known = {"temperature", "top_p", "top_k", "max_new_tokens", "stop_token_ids", "ignore_eos"}
        unknown = sorted(set(params) - known)
        if unknown:
            raise EngineError(
                f"sampling_params.{unknown[0]} is not supported by the embedded engine (supported: {', '.join(sorted(known))})"
            )
        options = cls(
            temperature=float(params.get("temperature", 1.0)),
            top_p=float(params.get("top_p", 1.0)),
            top_k=int(params.get("top_k", -1)),
            max_new_tokens=int(params.get("max_new_tokens", 128)),
            stop_token_ids=tuple(int(t) for t in params.get("stop_token_ids") or ()),
            ignore_eos=bool(params.get("ignore_eos", False)),
        )
        if options.temperature < 0:
            raise EngineError(f"sampling_params.temperature={options.temperature}: must be >= 0")
        if not 0 < options.top_p <= 1:
            raise EngineError(f"sampling_params.top_p={options.top_p}: must be in (0, 1]")
        if options.max_new_tokens < 0:
            raise EngineError(f"sampling_params.max_new_tokens={options.max_new_tokens}: must be >= 0")
        return options


@dataclass
class Completion:
    output_ids: list[int]
    logprobs: list[float]
    # SGLang's shape: {"type": "stop", "matched": id} | {"type": "length", "length": n} | {"type": "abort", ...}
    finish_reason: dict
    weight_version: str
    prompt_tokens: int
    # int32 [prompt + output - 1, moe layers, top_k] when asked for
    routed_experts: np.ndarray | None = None
    # SGLang 0.5.23's meta_info.weight_versions: [{version, start, end}] over output tokens
    weight_versions: list[dict] = field(default_factory=list)


@dataclass(eq=False)
class _Sequence:
    input_ids: list[int]
    options: SamplingOptions
    return_routed_experts: bool
    future: Future = field(default_factory=Future)
    output_ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    routed: list[np.ndarray] = field(default_factory=list)  # [positions, L, K] chunks
    # (old version, output tokens it had sampled) at each weight version change while live
    version_events: list[tuple[str, int]] = field(default_factory=list)


class Engine:
    @dataclass
    class Config:
        model_path: str = ""
        dtype: Literal["float32", "bfloat16"] = "float32"
        device: str = "cpu"
        max_batch_size: int = 64
        seed: int = 0
        # The version the loaded weights are (the trainer's policy version they came from).
        weight_version: str = "0"

        def build(self) -> "Engine":
            return Engine(self)

    def __init__(self, config: Config) -> None:
        from payload.model import load_pretrained
        from payload.rollout.tokenizer import load_tokenizer

        self.config = config
        self.device = torch.device(config.device)
        self.dtype = getattr(torch, config.dtype)
        self.model = load_pretrained(config.model_path, dtype=self.dtype, device=self.device).eval()
        self.model_path = config.model_path
        self.tokenizer = load_tokenizer(config.model_path)
        eos = self.model.config.eos_token_id
        self.eos_token_ids = set([] if eos is None else [eos] if isinstance(eos, int) else eos)
        self.weight_version = config.weight_version
        self._generator = torch.Generator(device=self.device).manual_seed(config.seed)
        self._weights_lock = threading.Lock()  # one forward step or one weight update at a time
        self._state = threading.Condition()  # guards the queue and the pause state
        self._waiting: deque[_Sequence] = deque()
        self._live: set[_Sequence] = set()  # submitted and not finished: waiting or running
        self._paused: PauseMode | None = None
        # A batch is between prefill and its end; held: it waits in place at a step boundary.
        self._running = False
        self._held = False
        self._abort_requested = False
        self._closed = False
        self._groups: dict[str, object] = {}
        self._thread = threading.Thread(target=self._schedule, name="engine-scheduler", daemon=True)
        self._thread.start()

    # -- requests -------------------------------------------------------------------------------

    def submit(
        self, input_ids: list[list[int]], options: list[SamplingOptions], return_routed_experts: bool = False
    ) -> list[Future]:
        limit = self.model.config.max_position_embeddings
        vocab = self.model.config.vocab_size
        sequences = []
        for ids, opts in zip(input_ids, options, strict=True):
            if not ids:
                raise EngineError("input_ids: a prompt needs at least one token")
            if min(ids) < 0 or max(ids) >= vocab:
                raise EngineError(f"input_ids: token ids must be in [0, {vocab})")
            if len(ids) + opts.max_new_tokens > limit:
                raise EngineError(
                    f"input_ids: {len(ids)} prompt tokens + max_new_tokens {opts.max_new_tokens} exceed the "
                    f"model's context of {limit} tokens"
                )
            sequences.append(_Sequence(list(ids), opts, return_routed_experts))
        with self._state:
            if self._closed:
                raise EngineError("the engine is shut down")
            self._waiting.extend(sequences)
            self._live.update(sequences)
            self._state.notify_all()
        return [s.future for s in sequences]

    def pause(self, mode: PauseMode) -> None:
        """Returns once the running batch, if any, stopped at a step boundary (held in place, or
        retracted to the queue): SGLang 0.5.23's scheduler takes /pause_generation in its event
        loop between batches, so when the call returns no forward is in flight and a weight
        update that follows splits every running request's tokens exactly there."""
        if mode not in ("abort", "retract", "in_place"):
            raise EngineError(f"mode {mode!r}: must be one of abort, retract, in_place")
        with self._state:
            self._paused = mode
            if mode == "abort":
                self._abort_requested = True
                for seq in self._waiting:
                    self._finish(seq, {"type": "abort", "message": "aborted by pause_generation"})
                self._waiting.clear()
            self._state.notify_all()
            while mode != "abort" and self._paused == mode and self._running and not self._held and not self._closed:
                self._state.wait(1.0)

    def resume(self) -> None:
        with self._state:
            self._paused = None
            self._abort_requested = False
            self._state.notify_all()

    def abort_all(self) -> None:
        with self._state:
            self._abort_requested = True
            for seq in self._waiting:
                self._finish(seq, {"type": "abort", "message": "aborted by a weight update"})
            self._waiting.clear()
            self._state.notify_all()

    @property
    def paused(self) -> PauseMode | None:
        return self._paused

    def close(self) -> None:
        with self._state:
            self._closed = True
            self._abort_requested = True
            self._state.notify_all()
        self._thread.join(10)

    def score(self, input_ids: list[int], start: int) -> tuple[list[float | None], str | None]:
        """SGLang's prefill-only logprobs (max_new_tokens 0, logprob_start_len `start`): for
        each token from `start` on, log p(token | the tokens before it), None for token 0;
        and the version that computed them. Outside the scheduler, between its steps."""
        from payload.model import compute_logprobs

        if not input_ids or min(input_ids) < 0 or max(input_ids) >= self.model.config.vocab_size:
            raise EngineError("input_ids: token ids must be in [0, vocab)")
        if not 0 <= start < len(input_ids):
            raise EngineError(f"logprob_start_len {start}: must be in [0, {len(input_ids)})")
        with self._weights_lock, torch.no_grad():
            logprobs, _ = compute_logprobs(self.model, torch.tensor([input_ids], device=self.device))
            version = self.weight_version
        values = [None, *logprobs[0].float().cpu().tolist()]
        return values[start:], version

    # -- weights --------------------------------------------------------------------------------

    def load_from_disk(self, path: str, weight_version: str | None) -> None:
        """Read an HF checkpoint directory of this architecture into the running model."""
        from payload.model import ModelConfigError, iter_hf_tensors, load_hf_state_dict, load_pretrained

        try:
            fresh = load_pretrained(path, dtype=self.dtype, device=self.device)
        except (ModelConfigError, OSError) as exc:
            raise EngineError(f"update_weights_from_disk {path}: {exc}") from None
        if fresh.config.to_hf_dict() != self.model.config.to_hf_dict():
            raise EngineError(f"update_weights_from_disk {path}: a different architecture than the served model")
        with self._weights_lock:
            load_hf_state_dict(self.model, dict(iter_hf_tensors(fresh)), source=path)
            self.model_path = path
            if weight_version is not None:
                self._set_weight_version(weight_version)
        log.info("loaded weights from %s (version %s)", path, self.weight_version)

    def init_weights_update_group(
        self, *, master_address: str, master_port: int, rank_offset: int, world_size: int, group_name: str, backend: str
    ) -> None:
        from payload.sync.group import init_weights_update_group

        if group_name in self._groups:
            raise EngineError(f"weight update group {group_name!r} already exists")
        # One rank per engine: the embedded engine has no tensor parallelism.
        self._groups[group_name] = init_weights_update_group(
            backend=backend, master_address=master_address, master_port=master_port, rank=rank_offset,
            world_size=world_size, group_name=group_name,
        )

    def destroy_weights_update_group(self, group_name: str) -> None:
        from payload.sync.group import destroy_weights_update_group

        group = self._groups.pop(group_name, None)
        if group is None:
            raise EngineError(f"no weight update group {group_name!r}")
        destroy_weights_update_group(group)

    def update_from_distributed(
        self, names: list[str], dtypes: list[str], shapes: list[list[int]], group_name: str, weight_version: str | None,
        load_format: str | None = None,
    ) -> None:
        """Receive one bucket by broadcast from rank 0 (in `names` order, or with load_format
        "flattened_bucket" as one uint8 tensor of all their bytes, SGLang 0.5.23's
        FlattenedTensorBucket layout) and load it."""
        import torch.distributed as dist

        from payload.model import iter_hf_tensors

        group = self._groups.get(group_name)
        if group is None:
            raise EngineError(f"no weight update group {group_name!r} (call /init_weights_update_group first)")
        if not len(names) == len(dtypes) == len(shapes):
            raise EngineError("names, dtypes and shapes must have the same length")
        if load_format not in (None, "flattened_bucket"):
            raise EngineError(f"load_format {load_format!r}: only 'flattened_bucket' or none is served")
        try:
            if load_format == "flattened_bucket":
                layout, offset = [], 0
                for shape, dtype in zip(shapes, dtypes):
                    dt = getattr(torch, dtype)
                    if offset % dt.itemsize:
                        raise EngineError(f"unaligned tensor in the bucket: byte offset {offset}, dtype {dtype}")
                    layout.append((offset, torch.Size(shape).numel() * dt.itemsize, dt, shape))
                    offset += layout[-1][1]
                flat = torch.empty(offset, dtype=torch.uint8, device=self.device)
            else:
                tensors = [torch.empty(shape, dtype=getattr(torch, dtype), device=self.device) for shape, dtype in zip(shapes, dtypes)]
        except (AttributeError, TypeError, RuntimeError) as exc:
            raise EngineError(f"bad dtype or shape in the bucket: {exc}") from None
        # Join every broadcast before looking at names: the trainer sends regardless, and a
        # rank that skipped one would desynchronise the group.
        if load_format == "flattened_bucket":
            dist.broadcast(flat, src=0, group=group)
            tensors = [flat[o : o + n].view(dt).reshape(shape) for o, n, dt, shape in layout]
        else:
            for handle in [dist.broadcast(t, src=0, group=group, async_op=True) for t in tensors]:
                handle.wait()
        tied = self.model.config.tie_word_embeddings
        with self._weights_lock:
            targets = dict(iter_hf_tensors(self.model))
            # Loaded one by one, like SGLang: an unknown name fails after the earlier ones loaded.
            for name, tensor in zip(names, tensors):
                if tied and name == "lm_head.weight":
                    continue
                target = targets.get(name)
                if target is None:
                    raise EngineError(f"update_weights_from_distributed: unknown weight {name}")
                if tuple(target.shape) != tuple(tensor.shape):
                    raise EngineError(f"update_weights_from_distributed: {name} has shape {tuple(tensor.shape)}, "
                                      f"the model needs {tuple(target.shape)}")
                target.copy_(tensor)
            if weight_version is not None:
                self._set_weight_version(weight_version)

    def _set_weight_version(self, version: str) -> None:
        """SGLang's record_weight_version_change: under the weights lock (between decode steps),
        every live sequence with output notes how many of its tokens the old version sampled."""
        if version == self.weight_version:
            return
        with self._state:
            for seq in self._live:
                if seq.output_ids:
                    seq.version_events.append((self.weight_version, len(seq.output_ids)))
        self.weight_version = version

    # -- the scheduler --------------------------------------------------------------------------

    def _finish(self, seq: _Sequence, reason: dict) -> None:
        routed = None
        if seq.return_routed_experts and seq.routed:
            routed = np.concatenate(seq.routed).astype(np.int32)
        with self._state:  # re-entrant: some callers hold it
            self._live.discard(seq)
        if not seq.future.done():
            spans = _version_spans(seq.version_events, self.weight_version, len(seq.output_ids))
            seq.future.set_result(Completion(list(seq.output_ids), list(seq.logprobs), reason, spans[-1]["version"],
                                             len(seq.input_ids), routed, spans))

    def _schedule(self) -> None:
        while True:
            with self._state:
                while not self._closed and (not self._waiting or self._paused is not None):
                    self._state.wait()
                if self._closed:
                    for seq in self._waiting:
                        self._live.discard(seq)
                        seq.future.set_exception(EngineError("the engine shut down"))
                    return
                batch = [self._waiting.popleft() for _ in range(min(len(self._waiting), self.config.max_batch_size))]
                self._running = True
            try:
                with torch.inference_mode():
                    self._run(batch)
            except Exception as exc:  # noqa: BLE001 - a failed batch fails its requests, not the engine
                log.exception("batch failed")
                for seq in batch:
                    self._live.discard(seq)
                    if not seq.future.done():
                        seq.future.set_exception(exc)
            finally:
                with self._state:
                    self._running = False
                    self._state.notify_all()

    def _interrupted(self, active: list[_Sequence]) -> bool:
        """Between decode steps: honour pauses and aborts. True when the batch must stop."""
        with self._state:
            while self._paused == "in_place" and not self._abort_requested and not self._closed:
                self._held = True
                self._state.notify_all()  # a pause() waiting for the batch to stop
                self._state.wait()
            self._held = False
            if self._abort_requested or self._closed:
                for seq in active:
                    self._finish(seq, {"type": "abort", "message": "aborted"})
                return True
            if self._paused == "retract":
                # Back to the front of the queue, to be continued after continue_generation.
                for seq in reversed(active):
                    self._waiting.appendleft(seq)
                return True
        return False

    def _run(self, batch: list[_Sequence]) -> None:
        from payload.model import KVCache

        todo = [s.options.max_new_tokens - len(s.output_ids) for s in batch]
        for seq, n in zip(batch, todo):
            if n <= 0:
                self._finish(seq, {"type": "length", "length": len(seq.output_ids)})
        batch = [s for s, n in zip(batch, todo) if n > 0]
        if not batch:
            return
        contexts = [s.input_ids + s.output_ids for s in batch]
        steps = max(s.options.max_new_tokens - len(s.output_ids) for s in batch)
        b, width = len(batch), max(len(c) for c in contexts)
        ids_BT = torch.zeros(b, width, dtype=torch.long)
        mask_BS = torch.zeros(b, width + steps, dtype=torch.long)
        for i, ctx in enumerate(contexts):
            ids_BT[i, width - len(ctx):] = torch.tensor(ctx)
            mask_BS[i, width - len(ctx):width] = 1
        ids_BT, mask_BS = ids_BT.to(self.device), mask_BS.to(self.device)
        cache = KVCache(self.model.config, b, width + steps, dtype=self.dtype, device=self.device)
        want_routes = any(s.return_routed_experts for s in batch)
        for seq in batch:
            seq.routed = []  # recomputed from the whole context (a retracted sequence's too)

        with self._weights_lock:
            out = self.model(ids_BT, attention_mask=mask_BS[:, :width], kv_cache=cache, logits_to_keep=1)
        if want_routes and out.routed_experts is not None:
            routes = self._sglang_route_layout(out.routed_experts.cpu().numpy())
            for i, (seq, ctx) in enumerate(zip(batch, contexts)):
                if seq.return_routed_experts:
                    seq.routed.append(routes[i, width - len(ctx):])

        active = list(range(b))
        for step in range(steps):
            tokens_B, logprobs_B = self._sample(out.logits[:, -1].float(), batch)
            still = []
            for i in active:
                seq, token = batch[i], int(tokens_B[i])
                seq.output_ids.append(token)
                seq.logprobs.append(float(logprobs_B[i]))
                opts = seq.options
                if token in opts.stop_token_ids or (not opts.ignore_eos and token in self.eos_token_ids):
                    self._finish(seq, {"type": "stop", "matched": token})
                elif len(seq.output_ids) >= opts.max_new_tokens:
                    self._finish(seq, {"type": "length", "length": len(seq.output_ids)})
                else:
                    still.append(i)
            active = still
            if not active or self._interrupted([batch[i] for i in active]):
                return
            mask_BS[:, width + step] = 1
            with self._weights_lock:
                out = self.model(
                    tokens_B[:, None].to(self.device),
                    attention_mask=mask_BS[:, : width + step + 1],
                    kv_cache=cache,
                    logits_to_keep=1,
                )
            if want_routes and out.routed_experts is not None:
                routes = out.routed_experts[:, 0].cpu().numpy()
                for i in active:
                    if batch[i].return_routed_experts:
                        batch[i].routed.append(routes[i : i + 1])

    def _sglang_route_layout(self, routes_BTMK: np.ndarray) -> np.ndarray:
        """[B, T, num_hidden_layers, K] as sglang 0.5.23 returns routed experts: one row per
        decoder layer, zeros for the dense ones (its capture buffer starts zeroed)."""
        config = self.model.config
        b, t, _, k = routes_BTMK.shape
        routes_BTLK = np.zeros((b, t, config.num_hidden_layers, k), dtype=routes_BTMK.dtype)
        routes_BTLK[:, :, list(config.moe_layer_ids)] = routes_BTMK
        return routes_BTLK

    def _sample(self, logits_BV: torch.Tensor, batch: list[_Sequence]) -> tuple[torch.Tensor, torch.Tensor]:
        opts = [s.options for s in batch]
        temps = torch.tensor([o.temperature for o in opts], device=logits_BV.device)
        greedy = temps == 0
        scaled = logits_BV / torch.where(greedy, torch.ones_like(temps), temps)[:, None]
        logprobs_BV = torch.log_softmax(scaled, dim=-1)
        probs_BV = logprobs_BV.exp()
        vocab = logits_BV.shape[-1]
        top_p = torch.tensor([o.top_p for o in opts], device=logits_BV.device)
        top_k = torch.tensor([o.top_k if o.top_k > 0 else vocab for o in opts], device=logits_BV.device)
        if bool(greedy.all()):
            # No draw: a greedy request (an eval) leaves the sampling stream as it found it, so
            # the rollouts that follow sample the same tokens as they would without it.
            tokens_B = logits_BV.argmax(-1)
            return tokens_B.cpu(), logprobs_BV.gather(1, tokens_B[:, None]).squeeze(1).cpu()
        if bool((top_p < 1).any() or (top_k < vocab).any()):
            sorted_probs, order = probs_BV.sort(dim=-1, descending=True)
            ranks = torch.arange(vocab, device=logits_BV.device)[None, :]
            drop = (ranks >= top_k[:, None]) | ((sorted_probs.cumsum(-1) - sorted_probs) > top_p[:, None])
            sorted_probs = sorted_probs.masked_fill(drop, 0.0)
            picked = torch.multinomial(sorted_probs, 1, generator=self._generator)
            sampled = order.gather(1, picked).squeeze(1)
        else:
            sampled = torch.multinomial(probs_BV, 1, generator=self._generator).squeeze(1)
        tokens_B = torch.where(greedy, logits_BV.argmax(-1), sampled)
        return tokens_B.cpu(), logprobs_BV.gather(1, tokens_B[:, None].to(logprobs_BV.device)).squeeze(1).cpu()


def _version_spans(events: list[tuple[str, int]], current: str, n: int) -> list[dict]:
    """SGLang 0.5.23's compute_weight_version_spans + add_weight_versions_to_meta_info: the
    output tokens [start, end) each version sampled, merged where a version repeats."""
    spans: list[dict] = []
    for version, end in [*events, (current, n)]:
        end = min(end, n)
        if spans and end <= spans[-1]["end"]:
            continue
        if spans and version == spans[-1]["version"]:
            spans[-1]["end"] = end
            continue
        spans.append({"version": version, "start": spans[-1]["end"] if spans else 0, "end": end})
    return spans
