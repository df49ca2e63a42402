"""What a publish holds on a trainer GPU follows its bucket (rollout.publish_bucket_mb), as the
memory model counts it (estimate.footprint.publish_buffer_bytes): measured on one GPU, a
one-rank NCCL world standing for the replica's gather, at two bucket sizes.

    python3 -m pytest -q -p no:cacheprovider tests/payload/sync/test_sync_publish_memory_gpu.py
"""

import pytest
import torch
import torch.distributed as dist

pytestmark = pytest.mark.gpu


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
@pytest.mark.parametrize("precision", ["bf16", "fp8"])
def test_a_publish_holds_what_the_memory_model_counts_for_its_bucket(tmp_path, precision):
    from estimate.footprint import publish_buffer_bytes
    from payload.sync.fanout import FanOutPublisher
    from payload.sync.publisher import WeightPublisher

    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1,
                            device_id=device)
    try:
        # 64 bf16 linears of 8 MiB (512 MiB): 8 buckets of 64 MiB, 4 of 128 MiB; every slot used.
        # fp8 quantizes them (their names are ones SGLang loads as FP8) after each gather.
        weights = {f"model.layers.{i}.mlp.gate_proj.weight": torch.randn(2048, 2048, device=device, dtype=torch.bfloat16)
                   for i in range(64)}
        measured = {}
        for mb in (64, 128):
            fan = FanOutPublisher.Config(WeightPublisher.Config(servers=[], backend="nccl", bucket_bytes=mb << 20,
                                                                precision=precision),
                                         local_ranks=1).build(0, 1, device)
            fan._gather, fan._replica_ranks, fan.rounds = dist.group.WORLD, [0], 1  # gather even alone
            fan.stage((n, tuple(t.shape), 0, t) for n, t in weights.items())
            torch.cuda.synchronize()
            before = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            fan.start(1)
            fan.wait()
            torch.cuda.synchronize()
            measured[mb] = torch.cuda.max_memory_allocated() - before
            modelled = publish_buffer_bytes(mb << 20, 1, precision)
            print(f"{precision}, bucket {mb} MiB: publish peak {measured[mb] / 2**20:.1f} MiB, modelled {modelled / 2**20:.1f} MiB "
                  f"({measured[mb] / modelled:.3f})")
            assert measured[mb] == pytest.approx(modelled, rel=0.05)
            fan.close()
        # Twice the bucket, twice what a publish holds.
        assert measured[128] / measured[64] == pytest.approx(2.0, rel=0.05)
    finally:
        dist.destroy_process_group()
