"""An FP8 publish (job.rollout.precision fp8) against SGLang 0.5.23's own receiving code: the
release's FlattenedTensorBucket allocates and views the bucket our WireFormat packs (one flat
bucket of fp32 scales, bf16 and fp8, every offset aligned), its block dequantizer recovers each
weight from the pair it receives, and the FP8 export
is a checkpoint of the same names the release loads. (The servers' --quantization fp8 goes
through the release's parser in test_sglang_release_contract.py.)"""

from __future__ import annotations

import importlib.util
import json

import pytest
import torch
from safetensors.torch import load_file

from payload.model import Qwen3MoeForCausalLM, tiny_config
from payload.model.checkpoint import iter_hf_tensors
from payload.sync import fp8
from payload.sync.wire import WireFormat
from payload.train.export import write_hf_directory

from test_fp8_rollout_format import release_function

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def release_bucket(sglang_source):
    """sglang/srt/weight_sync/tensor_bucket.py as released (it imports torch and dataclasses only)."""
    spec = importlib.util.spec_from_file_location("release_tensor_bucket", sglang_source / "srt/weight_sync/tensor_bucket.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FlattenedTensorBucket


@pytest.fixture(scope="module")
def block_quant_dequant(sglang_source):
    return release_function(sglang_source / "srt/layers/quantization/fp8_utils.py", "block_quant_dequant")


def received(release_bucket, packed):
    """What a server's runner holds after the broadcast: FlattenedTensorBucket.empty from the
    request's names/dtypes/shapes (it refuses an unaligned offset), filled with our bytes."""
    bucket = release_bucket.empty(packed.names, packed.dtypes, packed.shapes, "cpu")
    flat = bucket.get_flattened_tensor()
    assert flat.numel() == packed.nbytes
    flat.copy_(packed.flat)
    return dict(bucket.reconstruct_tensors())


def test_release_receives_an_fp8_bucket_and_recovers_every_weight(release_bucket, block_quant_dequant):
    torch.manual_seed(0)
    model = Qwen3MoeForCausalLM(tiny_config())
    # Odd shapes too: a [3, 5] linear is 15 fp8 bytes, a [7] norm 14 bf16 bytes; in the order
    # given, the tensors after them would start unaligned.
    tensors = [("odd.self_attn.q_proj.weight", torch.randn(3, 5)), ("odd.norm.weight", torch.randn(7)),
               *iter_hf_tensors(model)]
    wire = WireFormat(torch.bfloat16, "fp8")
    packed = wire.pack(tensors)
    assert packed.nbytes == wire.packed_bytes(tensors)
    got = received(release_bucket, packed)
    assert len(got) == len(tensors) + sum(fp8.is_quantized(n) for n, _ in tensors)
    for name, tensor in tensors:
        if fp8.is_quantized(name):
            weight, scale_inv = got[name], got[name.removesuffix("weight") + fp8.SCALE_SUFFIX]
            assert weight.dtype == torch.float8_e4m3fn and scale_inv.dtype == torch.float32
            # The experts, quantized a run at a time, are bit-equal to each one quantized alone.
            alone, alone_scale = fp8.quantize_block(tensor)
            assert torch.equal(weight.view(torch.uint8), alone.view(torch.uint8)) and torch.equal(scale_inv, alone_scale)
            back = block_quant_dequant(weight, scale_inv, [128, 128], torch.float32)
            assert ((back - tensor).norm() / tensor.norm()).item() < 3e-2, name
        else:
            assert got[name].dtype == torch.bfloat16 and torch.equal(got[name], tensor.to(torch.bfloat16)), name


def test_bf16_wire_is_the_bucket_it_always_was(release_bucket):
    tensors = list(iter_hf_tensors(Qwen3MoeForCausalLM(tiny_config())))
    got = received(release_bucket, WireFormat(torch.bfloat16).pack(tensors))
    assert list(got) == [n for n, _ in tensors]
    assert all(torch.equal(got[n], t.to(torch.bfloat16)) for n, t in tensors)


def test_fp8_export_is_a_block_fp8_checkpoint(tmp_path, block_quant_dequant):
    torch.manual_seed(0)
    model = Qwen3MoeForCausalLM(tiny_config())
    source = dict(iter_hf_tensors(model))
    path = write_hf_directory(source.items(), model.config, tmp_path / "fp8", shard_bytes=1 << 14, precision="fp8")
    config = json.loads((path / "config.json").read_text())
    assert config["quantization_config"] == fp8.quantization_config() and config["torch_dtype"] == "bfloat16"
    index = json.loads((path / "model.safetensors.index.json").read_text())["weight_map"]
    shards = {f: load_file(path / f) for f in set(index.values())}
    for name, tensor in source.items():
        if fp8.is_quantized(name):
            scale_name = name.removesuffix("weight") + fp8.SCALE_SUFFIX
            assert index[name] == index[scale_name]  # a pair in one file
            weight, scale_inv = shards[index[name]][name], shards[index[name]][scale_name]
            back = block_quant_dequant(weight, scale_inv, [128, 128], torch.float32)
            assert ((back - tensor).norm() / tensor.norm()).item() < 3e-2, name
        else:
            assert torch.equal(shards[index[name]][name], tensor.to(torch.bfloat16)), name
