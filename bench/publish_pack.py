"""Gather-and-pack rate of the weight publisher on one GPU, against the GPU's own copy rate.

    python bench/publish_pack.py [--bucket-mb 1024] [--device cuda|cpu] [--json OUT]

What it times, each a median of CUDA-event timings:
- copy peak: `dst.copy_(src)` of one bucket's bytes (bf16 to bf16), HBM bytes read + written per second;
- pack: payload.sync.bucket.pack of one bucket of Qwen3-30B-A3B layer tensors, in the order and
  views parallel.full_hf_tensors yields them (experts split from their [E, 2F, D] stacks), into
  one flat bf16 bucket: the publisher's per-bucket work on the sending rank; from bf16 sources
  (the trainer casts shards before gathering) and from fp32 (the old path), as bf16 bytes out
  per second and as HBM traffic against the copy peak;
- device-to-host into pinned memory (an asynchronous checkpoint's staging), GB/s.
estimate/costs.py's Hardware.pack_gb_s and d2h_gb_s take the figures (bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch

from payload.sync.bucket import pack


def timed(fn, repeat: int = 10) -> float:
    fn()
    cuda = torch.cuda.is_available()
    times = []
    for _ in range(repeat):
        if cuda:
            torch.cuda.synchronize()
        started = time.perf_counter()
        fn()
        if cuda:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def layer_tensors(device, dtype, d=2048, f=768, experts=128, heads=32, kv=4, hd=128):
    """One Qwen3-30B-A3B decoder layer's tensors as parallel.full_hf_tensors yields them: HF
    names, experts split from their gathered [E, 2F, D] / [E, D, F] stacks, in `dtype`."""
    g = torch.Generator(device=device).manual_seed(0)
    shapes = {"q_proj": (heads * hd, d), "k_proj": (kv * hd, d), "v_proj": (kv * hd, d), "o_proj": (d, heads * hd),
              "gate": (experts, d)}
    out = [(n, torch.randn(s, device=device, generator=g).to(dtype)) for n, s in shapes.items()]
    gate_up = torch.randn(experts, 2 * f, d, device=device, generator=g).to(dtype)
    down = torch.randn(experts, d, f, device=device, generator=g).to(dtype)
    for e in range(experts):
        gate, up = gate_up[e].split(f, dim=0)
        out += [(f"experts.{e}.gate_proj.weight", gate), (f"experts.{e}.up_proj.weight", up)]
    out += [(f"experts.{e}.down_proj.weight", down[e]) for e in range(experts)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bucket-mb", type=int, default=1024)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--json")
    args = parser.parse_args()
    device = torch.device(args.device)
    name = torch.cuda.get_device_name() if device.type == "cuda" else "cpu"
    result = {"device": name, "torch": torch.__version__}

    src = torch.empty(args.bucket_mb << 19, dtype=torch.bfloat16, device=device).normal_()
    dst = torch.empty_like(src)
    copy_s = timed(lambda: dst.copy_(src))
    result["copy_peak_gb_s"] = 2 * src.numel() * 2 / copy_s / 1e9
    del src, dst

    experts = 128 if device.type == "cuda" else 16
    # bf16 sources: what the trainer sends (shards cast before the gather); fp32: the old path.
    for source, read_bytes in ((torch.bfloat16, 2), (torch.float32, 4)):
        tensors = layer_tensors(device, source, experts=experts)
        bucket, size = [], 0
        while size < args.bucket_mb << 20:
            for name, t in tensors:
                bucket.append((name, t))
                size += t.numel() * 2
        buffer = torch.empty(size, dtype=torch.uint8, device=device)
        pack_s = timed(lambda: pack(bucket, torch.bfloat16, buffer))
        key = str(source).removeprefix("torch.")
        result[f"pack_from_{key}_gb_s"] = size / pack_s / 1e9
        result[f"pack_from_{key}_vs_copy_peak"] = (read_bytes + 2) * size / 2 / pack_s / 1e9 / result["copy_peak_gb_s"]
        packed = pack(bucket, torch.bfloat16, buffer)
        for (name, original), (_, view) in zip(bucket, packed.tensors()):
            assert torch.equal(view, original.to(torch.bfloat16)), name
        del buffer, packed, bucket, tensors
    result["bucket_tensors"] = experts * 3 + 5
    result["bucket_bytes"] = size

    if device.type != "cuda":
        print(json.dumps(result, indent=2))
        return
    pinned = torch.empty(2**30, dtype=torch.uint8, pin_memory=True)
    on_gpu = torch.empty(2**30, dtype=torch.uint8, device=device)
    d2h_s = timed(lambda: pinned.copy_(on_gpu, non_blocking=True), repeat=5)
    result["d2h_pinned_gb_s"] = on_gpu.numel() / d2h_s / 1e9

    print(json.dumps(result, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
