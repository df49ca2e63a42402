"""What a publish puts on the wire: the rollout engine's dtype, or SGLang's block FP8.

The publish path's one hook for the format (payload/sync/publisher.py `_packed` and
payload/sync/fanout.py `stage` call it where a bucket is packed; the bucketing and the groups
know nothing of it):

- `bf16` (the default): every tensor cast to the engine's dtype while it is packed;
- `fp8`: each linear weight SGLang 0.5.23 loads as block FP8 for Qwen3-MoE (payload/sync/fp8.py:
  attention q/k/v/o and the experts' gate/up/down) becomes its float8_e4m3fn weight and its
  float32 `weight_scale_inv` beside it, in the same bucket (a server loads the pair together);
  the router, norms, embeddings and lm_head go in the engine's dtype. A server started from a
  block-FP8 checkpoint (config.json `quantization_config`, `--quantization fp8`) has parameters
  of exactly those names, dtypes and shapes, and its `load_weights` copies them in.

One flat bucket then mixes three dtypes. SGLang's receiver (FlattenedTensorBucket.empty) views
tensor i at the byte offset of the sizes before it and refuses an offset not aligned to its
dtype, and a flat bucket has no padding: so a bucket is laid out widest dtype first (fp32
scales, then bf16, then fp8), which aligns every offset whatever the shapes.

Bytes at 235B (spec/model_shape.py Qwen3MoeConfig.publish_bytes): bf16 470 GB a publish; fp8
236 GB (the quantized linears are 99.4% of the parameters; 57 MB of scales). The quantization
runs on the GPU the bucket is packed on (one read of bf16, one write of fp8; rate measured on an
H200 in bench/README.md), inside the trainer's stall, against half the bytes to move after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch

from payload.sync import fp8
from payload.sync.bucket import FlatBucket, _follows, pack

Precision = Literal["bf16", "fp8"]
PRECISIONS: tuple[str, ...] = ("bf16", "fp8")


@dataclass(frozen=True)
class WireFormat:
    dtype: torch.dtype  # the rollout engine's dtype: every tensor that is not quantized
    precision: Precision = "bf16"

    def __post_init__(self) -> None:
        if self.precision not in PRECISIONS:
            raise ValueError(f"rollout precision {self.precision!r}: expected one of {', '.join(PRECISIONS)}")

    def nbytes(self, name: str, tensor: torch.Tensor) -> int:
        """Bytes `tensor` takes on the wire (what buckets are sized by)."""
        if self.precision == "fp8" and fp8.is_quantized(name):
            o, i = tensor.shape
            return o * i + 4 * -(-o // fp8.BLOCK) * -(-i // fp8.BLOCK)
        return tensor.numel() * self.dtype.itemsize

    def encode(self, bucket: list[tuple[str, torch.Tensor]]) -> tuple[list[tuple[str, torch.Tensor]], list[torch.dtype]]:
        """The bucket's wire tensors and their dtypes, widest first (aligned offsets)."""
        if self.precision == "bf16":
            return bucket, [self.dtype] * len(bucket)
        out: list[tuple[str, torch.Tensor, torch.dtype]] = []
        i = 0
        while i < len(bucket):
            name, tensor = bucket[i]
            if not fp8.is_quantized(name):
                out.append((name, tensor, self.dtype))
                i += 1
                continue
            if tensor.dim() != 2:
                raise ValueError(f"{name}: shape {tuple(tensor.shape)}, a linear weight must be 2-D [out, in]")
            # A run of same-shaped weights back to back in one storage (the experts split from a
            # stacked [E, F, D] parameter) is quantized in one call: per tensor, the ~10 kernels
            # of quantize_block on a 3 MB expert are launch-bound.
            j = i + 1
            while (j < len(bucket) and fp8.is_quantized(bucket[j][0]) and bucket[j][1].shape == tensor.shape
                   and _follows(bucket[j - 1][1], bucket[j][1])):
                j += 1
            stacked = tensor.as_strided((j - i, *tensor.shape), (tensor.numel(), *tensor.stride()), tensor.storage_offset())
            q, scale_inv = fp8.quantize_block(stacked)
            for k, (run_name, _) in enumerate(bucket[i:j]):
                out.append((run_name, q[k], fp8.FP8_DTYPE))
                out.append((run_name[: -len("weight")] + fp8.SCALE_SUFFIX, scale_inv[k], torch.float32))
            i = j
        out.sort(key=lambda entry: -entry[2].itemsize)  # stable: names keep their order within a dtype
        return [(name, tensor) for name, tensor, _ in out], [dtype for _, _, dtype in out]

    def pack(self, bucket: list[tuple[str, torch.Tensor]], buffer: torch.Tensor | None = None) -> FlatBucket:
        tensors, dtypes = self.encode(bucket)
        return pack(tensors, dtypes, buffer)

    def packed_bytes(self, bucket: list[tuple[str, torch.Tensor]]) -> int:
        return sum(self.nbytes(name, tensor) for name, tensor in bucket)
