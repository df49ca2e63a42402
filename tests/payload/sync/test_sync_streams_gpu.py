"""The publish never shares a stream with training (issue 45 item 3), on one GPU, two threads.

A one-rank NCCL world stands for the replica: the fan-out's gather runs on it from the publish
thread while the training thread runs matmuls on the default stream. torch.profiler's trace
(kineto, each kernel's CUDA stream) must show the publish's host-to-device copies and NCCL
kernels on streams the training GEMMs never used, and the publish running while the training
kernels were still running (overlap, not serialization).

    python3 -m pytest -q -p no:cacheprovider tests/payload/sync/test_sync_streams_gpu.py
"""

import json
import threading

import pytest
import torch
import torch.distributed as dist

pytestmark = pytest.mark.gpu


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_publish_kernels_run_on_their_own_stream_beside_the_training_step(tmp_path):
    from payload.sync.fanout import FanOutPublisher
    from payload.sync.publisher import WeightPublisher

    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1,
                            device_id=device)
    try:
        fan = FanOutPublisher.Config(WeightPublisher.Config(servers=[], backend="nccl", bucket_bytes=64 << 20),
                                     local_ranks=1).build(0, 1, device)
        fan._gather, fan._replica_ranks, fan.rounds = dist.group.WORLD, [0], 1  # gather even alone
        weights = {f"w{i}": torch.randn(2048, 2048, device=device) for i in range(24)}  # 200 MB bf16, 4 buckets
        gathered = []
        fan.on_event = lambda *e: gathered.append(e) if e[0] == "gathered" else None
        a = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
        go = threading.Event()

        def train():
            go.wait()
            for _ in range(40):
                a @ a
            torch.cuda.current_stream().synchronize()

        # The first stage exchanges the layout's headers (all_gather_object, once a run, on the
        # training thread by design: FanOutPublisher.stage); the publishes after it are measured.
        fan.stage((n, tuple(t.shape), 0, t) for n, t in weights.items())
        fan.start(0)
        fan.wait()
        gathered.clear()
        trace = tmp_path / "trace.json"
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                torch.profiler.ProfilerActivity.CUDA]) as prof:
            fan.stage((n, tuple(t.shape), 0, t) for n, t in weights.items())
            worker = threading.Thread(target=train)
            worker.start()
            for _ in range(2):
                a @ a  # training work queued before the publish starts
            go.set()
            fan.start(1)
            fan.wait()
            worker.join()
            torch.cuda.synchronize()
        prof.export_chrome_trace(str(trace))
        assert [e[3] for e in gathered] == list(range(len(gathered))) and len(gathered) >= 2

        events = json.loads(trace.read_text())["traceEvents"]
        kernels = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy") and "stream" in e.get("args", {})]
        gemm = [e for e in kernels if e["cat"] == "kernel" and ("gemm" in e["name"].lower() or "sm90" in e["name"]
                                                               or "cutlass" in e["name"].lower())]
        h2d = [e for e in kernels if e["cat"] == "gpu_memcpy" and "HtoD" in e["name"]]
        assert gemm and h2d, sorted({e["name"][:40] for e in kernels})
        # A one-rank NCCL all-gather is a device-to-device copy (NCCL copies when nranks is 1),
        # not a kernel named nccl: both count as the gather's work. `stage` packs the rows with
        # device-to-device copies too, on the training stream by design (then one copy to the
        # pinned share, which the publish stream waits for through `_ready`): those all start
        # before the publish's first host-to-device copy, the gather's copies after it. (H100
        # runs of 2026-12-07: counting every device-to-device copy, and then profiling the first
        # stage, whose layout exchange copies on the training stream, read streams {7} vs {7, 20}.)
        publish_from = min(e["ts"] for e in h2d)
        nccl = [e for e in kernels if "nccl" in e["name"].lower()
                or (e["cat"] == "gpu_memcpy" and "DtoD" in e["name"] and e["ts"] >= publish_from)]
        assert nccl, sorted({e["name"][:40] for e in kernels})
        training_streams = {e["args"]["stream"] for e in gemm}
        publish_streams = {e["args"]["stream"] for e in h2d + nccl}
        assert training_streams.isdisjoint(publish_streams), (training_streams, publish_streams)
        assert 7 not in {e["args"]["stream"] for e in h2d}  # the legacy default stream: never the publish's
        # Overlap: the publish's first copy started before the training's last GEMM ended.
        first_publish = min(e["ts"] for e in h2d + nccl)
        last_train_end = max(e["ts"] + e["dur"] for e in gemm)
        assert first_publish < last_train_end, (first_publish, last_train_end)
        fan.close()
    finally:
        dist.destroy_process_group()
