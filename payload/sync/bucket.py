"""One publish bucket as one flat byte tensor, in SGLang's `flattened_bucket` layout.

SGLang 0.5.23 (`FlattenedTensorBucket.empty` in sglang/srt/weight_sync/tensor_bucket.py, used by
`receive_weights_from_distributed` when the request says `load_format: "flattened_bucket"`)
allocates `sum(numel x itemsize)` uint8 bytes, receives them in ONE broadcast, and views tensor
i at byte offset `sum of the sizes before it`, rejecting an offset not aligned to its dtype.
`pack` writes exactly that layout: each tensor is cast to the wire dtype while it is copied in
(no full-precision copy, no intermediate per-tensor cast), so the bucket is the only new memory.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch


@dataclass
class FlatBucket:
    names: list[str]
    dtypes: list[str]
    shapes: list[list[int]]
    flat: torch.Tensor  # uint8, the bucket's bytes

    @property
    def nbytes(self) -> int:
        return self.flat.numel()

    def tensors(self) -> list[tuple[str, torch.Tensor]]:
        """Views of the packed tensors (what the receiver reconstructs)."""
        out, offset = [], 0
        for name, dtype, shape in zip(self.names, self.dtypes, self.shapes):
            dt = getattr(torch, dtype)
            size = torch.Size(shape).numel() * dt.itemsize
            out.append((name, self.flat[offset : offset + size].view(dt).view(shape)))
            offset += size
        return out


def packed_bytes(tensors: Iterable[torch.Tensor], dtype: torch.dtype) -> int:
    return sum(t.numel() * dtype.itemsize for t in tensors)


def pack(bucket: list[tuple[str, torch.Tensor]], dtype: torch.dtype, buffer: torch.Tensor | None = None) -> FlatBucket:
    """Cast-and-copy `bucket` into `buffer` (uint8, large enough; allocated on the first
    tensor's device if None). Mixed wire dtypes are not needed: every tensor goes as `dtype`."""
    total = packed_bytes((t for _, t in bucket), dtype)
    if buffer is None or buffer.numel() < total:
        device = bucket[0][1].device if bucket else "cpu"
        buffer = torch.empty(total, dtype=torch.uint8, device=device)
    flat = buffer[:total]
    offset = 0
    for _, tensor in bucket:
        size = tensor.numel() * dtype.itemsize
        flat[offset : offset + size].view(dtype).view(tensor.shape).copy_(tensor)
        offset += size
    name_dtype = str(dtype).removeprefix("torch.")
    return FlatBucket([n for n, _ in bucket], [name_dtype] * len(bucket), [list(t.shape) for _, t in bucket], flat)
