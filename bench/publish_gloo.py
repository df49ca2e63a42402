"""The weight publisher at small scale on CPU: gloo, loopback, real `serve --engine local` servers.

    python bench/publish_gloo.py [--servers 2] [--nodes 2] [--local-ranks 2] [--layers 8] [--experts 64] [--bucket-mb 16]

Publishes a Qwen3-MoE of ~0.1 B parameters in bf16 to N embedded-engine servers (SGLang 0.5.23's
protocol: begin/end session, flattened buckets, one broadcast each) two ways, and times both
against the peer measured in the same run, a raw gloo broadcast of the same bytes in the same
bucket sizes from one process to N receiver processes (what the transport alone costs):

    rank 0       payload.sync.publisher.WeightPublisher in one process feeding every server
    fan-out      payload.sync.fanout.FanOutPublisher on --nodes x --local-ranks gloo processes
                 (one replica, every tensor's rows split over them): each stages its own rows
                 (timed on rank 0: the trainer's stall), then on a background thread the replica
                 all-gathers each bucket and each node's ranks feed its servers (timed: start to end)

The ratios are the protocol's overhead (HTTP per bucket, packing, the servers' loads) and, on
one machine, the all-gather's; estimate/costs.py models them at scale (bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from payload.common.ports import free_port

REPO = Path(__file__).resolve().parents[1]


def _receiver(rank: int, world: int, port: int, sizes: list[int], repeat: int) -> None:
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank + 1, world_size=world)
    for _ in range(repeat):
        for size in sizes:
            dist.broadcast(torch.empty(size, dtype=torch.uint8), src=0)
    dist.barrier()
    dist.destroy_process_group()


def raw_broadcast_s(sizes: list[int], receivers: int, repeat: int) -> float:
    """Median seconds to broadcast buckets of `sizes` bytes from this process to `receivers`."""
    port = free_port()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_receiver, args=(r, receivers + 1, port, sizes, repeat)) for r in range(receivers)]
    for p in procs:
        p.start()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=receivers + 1)
    buckets = [torch.zeros(size, dtype=torch.uint8) for size in sizes]
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        for bucket in buckets:
            dist.broadcast(bucket, src=0)
        times.append(time.perf_counter() - started)
    dist.barrier()
    dist.destroy_process_group()
    for p in procs:
        p.join()
    return statistics.median(times)


def _own_rows(tensors, rank: int, world: int):
    for name, tensor in tensors:
        parts = torch.tensor_split(tensor, world)
        yield name, tuple(tensor.shape), sum(p.shape[0] for p in parts[:rank]), parts[rank]


def _source(rank: int, world: int, local: int, port: int, urls: list[str], tensors, bucket_bytes: int, repeat: int,
            first: int, out) -> None:
    """One training GPU: stage its rows, publish behind, wait; times on rank 0."""
    from payload.sync.fanout import FanOutPublisher
    from payload.sync.publisher import WeightPublisher

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    config = WeightPublisher.Config(servers=urls, backend="gloo", dtype="bfloat16", master_address="127.0.0.1",
                                    bucket_bytes=bucket_bytes)
    fanout = FanOutPublisher.Config(config, local_ranks=local).build(rank, world, torch.device("cpu"))
    stages, publishes = [], []
    for version in range(first, first + repeat + 1):
        dist.barrier()
        started = time.perf_counter()
        fanout.stage(_own_rows(tensors, rank, world))
        staged = time.perf_counter()
        fanout.start(version)
        outcome = fanout.wait()
        stages.append(staged - started)
        publishes.append(time.perf_counter() - staged)
        if rank == 0 and outcome.error:
            raise RuntimeError(outcome.error)
    fanout.close()
    dist.destroy_process_group()
    if rank == 0:
        out.put((stages, publishes))


def fan_out_s(urls: list[str], tensors, bucket_bytes: int, nodes: int, local: int, repeat: int, first: int
              ) -> tuple[list[float], list[float]]:
    port = free_port()
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    world = nodes * local
    procs = [ctx.Process(target=_source, args=(r, world, local, port, urls, tensors, bucket_bytes, repeat, first, out))
             for r in range(world)]
    for p in procs:
        p.start()
    result = out.get(timeout=600)
    for p in procs:
        p.join()
    return result


def main() -> None:
    from payload.model import Qwen3MoeForCausalLM, iter_hf_tensors, save_pretrained, tiny_config
    from payload.sync.publisher import WeightPublisher, buckets

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--local-ranks", type=int, default=2)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--experts", type=int, default=64)
    parser.add_argument("--bucket-mb", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = tiny_config(vocab_size=4096, hidden_size=256, moe_intermediate_size=128, num_hidden_layers=args.layers,
                         num_experts=args.experts, num_experts_per_tok=4)
    torch.manual_seed(0)
    model = Qwen3MoeForCausalLM(config)
    tensors = list(iter_hf_tensors(model))
    bf16_bytes = sum(t.numel() * 2 for _, t in tensors)
    bucket_bytes = args.bucket_mb << 20
    sizes = [sum(t.numel() * 2 for _, t in b) for b in buckets(tensors, bucket_bytes, 2)]

    with tempfile.TemporaryDirectory() as tmp:
        save_pretrained(model, tmp)
        env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
        servers = []
        for _ in range(args.servers):
            port, metrics = free_port(), free_port()
            proc = subprocess.Popen([sys.executable, "-m", "payload", "serve", "--engine", "local", "--model-path", tmp,
                                     "--host", "127.0.0.1", "--port", str(port), "--metrics-port", str(metrics)],
                                    env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
            servers.append((proc, f"http://127.0.0.1:{port}", metrics))
        try:
            for proc, url, metrics in servers:
                deadline = time.monotonic() + 120
                while True:
                    try:
                        if httpx.get(f"http://127.0.0.1:{metrics}/readyz", timeout=1).status_code == 200:
                            break
                    except httpx.HTTPError:
                        pass
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise RuntimeError(f"{url} did not start")
                    time.sleep(0.2)
            publisher = WeightPublisher.Config(servers=[u for _, u, _ in servers], backend="gloo", dtype="bfloat16",
                                               master_address="127.0.0.1", bucket_bytes=bucket_bytes).build()
            times = []
            for version in range(1, args.repeat + 2):
                started = time.perf_counter()
                publisher.publish(iter(tensors), version)
                times.append(time.perf_counter() - started)
            publisher.close()
            # The fan-out on groups of its own, with versions after the rank-0 runs' (each one moves).
            stages, fanned = fan_out_s([u for _, u, _ in servers], tensors, bucket_bytes, args.nodes,
                                       args.local_ranks, args.repeat, first=args.repeat + 2)
        finally:
            for proc, _, _ in servers:
                proc.kill()
                proc.wait()
    publish_s = statistics.median(times[1:])  # the first publish also forms the group
    stage_s, fan_out_publish_s = statistics.median(stages[1:]), statistics.median(fanned[1:])
    raw_s = raw_broadcast_s(sizes, args.servers, args.repeat)
    result = {
        "parameters": sum(t.numel() for _, t in tensors), "tensors": len(tensors), "bf16_bytes": bf16_bytes,
        "buckets": len(sizes), "servers": args.servers, "nodes": args.nodes,
        "local_ranks": args.local_ranks,
        "raw_broadcast_s": raw_s, "raw_broadcast_gb_s": bf16_bytes / raw_s / 1e9,
        "rank0_first_publish_s": times[0], "rank0_publish_s": publish_s, "rank0_vs_raw_broadcast": raw_s / publish_s,
        "fan_out_stage_s": stage_s, "fan_out_publish_s": fan_out_publish_s,
        "fan_out_vs_raw_broadcast": raw_s / fan_out_publish_s,
        "fan_out_stage_and_publish_vs_raw_broadcast": raw_s / (stage_s + fan_out_publish_s),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
