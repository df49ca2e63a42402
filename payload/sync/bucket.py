"""One publish bucket as one flat byte tensor, in SGLang's `flattened_bucket` layout.

SGLang 0.5.23 (`FlattenedTensorBucket.empty` in sglang/srt/weight_sync/tensor_bucket.py, used by
`receive_weights_from_distributed` when the request says `load_format: "flattened_bucket"`)
allocates `sum(numel x itemsize)` uint8 bytes, receives them in ONE broadcast, and views tensor
i at byte offset `sum of the sizes before it`, rejecting an offset not aligned to its dtype.
`pack` writes exactly that layout: each tensor is cast to the wire dtype while it is copied in
(no full-precision copy, no intermediate per-tensor cast), so the bucket is the only new memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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


def _follows(a: torch.Tensor, b: torch.Tensor) -> bool:
    """`b` starts where `a` ends in the same storage, both contiguous and alike."""
    return (a.is_contiguous() and b.is_contiguous() and a.dtype == b.dtype and a.device == b.device
            and b.storage_offset() == a.storage_offset() + a.numel()
            and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr())


def _wire_dtypes(dtype: torch.dtype | Sequence[torch.dtype], count: int) -> list[torch.dtype]:
    return [dtype] * count if isinstance(dtype, torch.dtype) else list(dtype)


def packed_bytes(tensors: Iterable[torch.Tensor], dtype: torch.dtype | Sequence[torch.dtype]) -> int:
    tensors = list(tensors)
    return sum(t.numel() * d.itemsize for t, d in zip(tensors, _wire_dtypes(dtype, len(tensors))))


def pack(bucket: list[tuple[str, torch.Tensor]], dtype: torch.dtype | Sequence[torch.dtype],
         buffer: torch.Tensor | None = None) -> FlatBucket:
    """Cast-and-copy `bucket` into `buffer` (uint8, large enough; allocated on the first
    tensor's device if None). `dtype`: every tensor's wire dtype, or one per tensor (an FP8
    bucket mixes fp32 scales, bf16 and fp8: payload/sync/wire.py orders them so that each
    offset is aligned to its dtype, which FlattenedTensorBucket.empty checks)."""
    dtypes = _wire_dtypes(dtype, len(bucket))
    total = packed_bytes((t for _, t in bucket), dtypes)
    if buffer is None or buffer.numel() < total:
        device = bucket[0][1].device if bucket else "cpu"
        buffer = torch.empty(total, dtype=torch.uint8, device=device)
    flat = buffer[:total]
    offset, i = 0, 0
    while i < len(bucket):
        # A run of tensors that lie back to back in one storage (the HF tensors split from a
        # stacked [E, 2F, D] expert parameter) is packed with one copy: per-tensor copies are
        # launch-bound (~20 µs each, bench/README.md).
        j = i + 1
        while j < len(bucket) and dtypes[j] == dtypes[i] and _follows(bucket[j - 1][1], bucket[j][1]):
            j += 1
        first, wire = bucket[i][1], dtypes[i]
        numel = sum(t.numel() for _, t in bucket[i:j])
        source = first.as_strided((numel,), (1,), first.storage_offset()) if j - i > 1 else first.reshape(-1)
        if offset % wire.itemsize:
            raise ValueError(f"{bucket[i][0]}: byte offset {offset} is not aligned to {wire} (SGLang refuses it)")
        flat[offset : offset + numel * wire.itemsize].view(wire).copy_(source)
        offset += numel * wire.itemsize
        i = j
    names = [str(d).removeprefix("torch.") for d in dtypes]
    return FlatBucket([n for n, _ in bucket], names, [list(t.shape) for _, t in bucket], flat)
