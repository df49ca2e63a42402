"""A Qwen3-MoE model's shape: its Hugging Face config.json (read, checked and written here), the
figures that size its memory, data movements and layout (parameters, tensors, publish bytes), and
the released checkpoints' own config.json files (ARCHITECTURES). Torch-free: the planner, the
environment's checks, the charts and the model itself read this one description."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal


class ModelConfigError(ValueError):
    """A checkpoint or config that is not a Qwen3-MoE model this code can run: one line, names the field."""


ExpertsImpl = Literal["auto", "fused", "grouped_mm", "loop"]
EXPERTS_IMPLS = ("auto", "fused", "grouped_mm", "loop")
ExpertsPrecision = Literal["bf16", "fp8"]
EXPERTS_PRECISIONS = ("bf16", "fp8")


@dataclass
class Qwen3MoeConfig:
    """The architecture (HF config.json fields) plus run-time switches that are not saved.

    Field names and defaults follow `transformers.Qwen3MoeConfig` / Qwen3-30B-A3B's config.json.
    """

    vocab_size: int = 151936
    hidden_size: int = 2048
    intermediate_size: int = 6144
    moe_intermediate_size: int = 768
    num_hidden_layers: int = 48
    num_attention_heads: int = 32
    num_key_value_heads: int = 4
    head_dim: int = 128
    num_experts: int = 128
    num_experts_per_tok: int = 8
    norm_topk_prob: bool = True
    rms_norm_eps: float = 1e-6
    rope_theta: float = 1_000_000.0
    max_position_embeddings: int = 40960
    decoder_sparse_step: int = 1
    mlp_only_layers: list[int] = field(default_factory=list)
    router_aux_loss_coef: float = 0.001
    tie_word_embeddings: bool = False
    bos_token_id: int | None = None
    eos_token_id: int | list[int] | None = None

    # Run-time switches, never written to config.json.
    # Recompute each decoder layer in backward instead of keeping its activations.
    activation_checkpointing: bool = False
    # How experts multiply their tokens: Triton grouped GEMMs with the token permutation folded
    # into their loads and stores (payload/model/fused_experts.py; all experts local), torch's
    # grouped GEMM on permuted rows, a per-expert loop, or the fastest this device supports.
    experts_impl: ExpertsImpl = "auto"
    # The experts' forward and input-gradient GEMMs in bf16 (the compute dtype) or in e4m3 with
    # rowwise scales (payload/model/fp8_experts.py; the weight gradient stays bf16). fp8 runs on
    # torch's grouped GEMM path (experts_impl auto or grouped_mm).
    experts_precision: ExpertsPrecision = "bf16"
    # Hold the LM head's logits (tokens x vocab, compute dtype) from forward to backward instead
    # of recomputing them there (payload/model/logprobs.py): a quarter of the LM head's FLOPs for
    # 2 B per token per vocabulary entry. (The job's "auto" is resolved by the trainer before the
    # model is built: estimate.footprint.trainer_keeps_logits.)
    lm_head_keep_logits: bool = False

    _RUNTIME_FIELDS = ("activation_checkpointing", "experts_impl", "experts_precision", "lm_head_keep_logits")

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        positive = (
            "vocab_size hidden_size intermediate_size moe_intermediate_size num_hidden_layers "
            "num_attention_heads num_key_value_heads head_dim num_experts num_experts_per_tok "
            "max_position_embeddings decoder_sparse_step"
        ).split()
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ModelConfigError(f"config field {name}={value!r}: must be a positive integer")
        if self.num_attention_heads % self.num_key_value_heads:
            raise ModelConfigError(
                f"config field num_key_value_heads={self.num_key_value_heads}: must divide "
                f"num_attention_heads={self.num_attention_heads}"
            )
        if self.head_dim % 2:
            raise ModelConfigError(f"config field head_dim={self.head_dim}: must be even (rotary embedding)")
        if self.num_experts_per_tok > self.num_experts:
            raise ModelConfigError(
                f"config field num_experts_per_tok={self.num_experts_per_tok}: must be at most "
                f"num_experts={self.num_experts}"
            )
        bad_layers = [i for i in self.mlp_only_layers if not 0 <= i < self.num_hidden_layers]
        if bad_layers:
            raise ModelConfigError(
                f"config field mlp_only_layers={self.mlp_only_layers}: layer ids must be in "
                f"[0, {self.num_hidden_layers})"
            )
        if self.experts_impl not in EXPERTS_IMPLS:
            raise ModelConfigError(
                f"experts_impl={self.experts_impl!r}: must be one of " + ", ".join(map(repr, EXPERTS_IMPLS))
            )
        if not isinstance(self.lm_head_keep_logits, bool):
            raise ModelConfigError(
                f"lm_head_keep_logits={self.lm_head_keep_logits!r}: must be True or False here (the job's "
                "'auto' is resolved by estimate.footprint.trainer_keeps_logits)"
            )
        if self.experts_precision not in EXPERTS_PRECISIONS:
            raise ModelConfigError(
                f"experts_precision={self.experts_precision!r}: must be one of "
                + ", ".join(map(repr, EXPERTS_PRECISIONS))
            )
        if self.experts_precision == "fp8":
            if self.experts_impl not in ("auto", "grouped_mm"):
                raise ModelConfigError(
                    f"experts_precision='fp8': runs on torch's grouped GEMM, so experts_impl must be 'auto' or "
                    f"'grouped_mm', not {self.experts_impl!r}"
                )
            for name in ("hidden_size", "moe_intermediate_size"):
                if getattr(self, name) % 16:
                    raise ModelConfigError(
                        f"experts_precision='fp8': config field {name}={getattr(self, name)} must be a multiple of "
                        "16 (torch._scaled_grouped_mm)"
                    )

    def is_moe_layer(self, layer_id: int) -> bool:
        return layer_id not in self.mlp_only_layers and (layer_id + 1) % self.decoder_sparse_step == 0

    @property
    def moe_layer_ids(self) -> list[int]:
        return [i for i in range(self.num_hidden_layers) if self.is_moe_layer(i)]

    def replace(self, **changes) -> "Qwen3MoeConfig":
        return dataclasses.replace(self, **changes)

    # ---- what sizes the model's memory and data movements ----
    def _mlp_parameters(self, layer_id: int) -> int:
        d = self.hidden_size
        if self.is_moe_layer(layer_id):
            return self.num_experts * 3 * d * self.moe_intermediate_size + self.num_experts * d  # experts, router
        return 3 * d * self.intermediate_size  # a dense layer's gate, up, down

    @property
    def parameters(self) -> int:
        d, heads, kv, hd = self.hidden_size, self.num_attention_heads, self.num_key_value_heads, self.head_dim
        attention = d * heads * hd * 2 + d * kv * hd * 2 + 2 * hd  # q, o, k, v, q/k norms
        layers = sum(attention + self._mlp_parameters(i) + 2 * d for i in range(self.num_hidden_layers))  # two norms
        embeddings = self.vocab_size * d * (1 if self.tie_word_embeddings else 2)
        return layers + embeddings + d

    @property
    def expert_parameters(self) -> int:
        """The routed experts' weights (split over expert-parallel ranks; the rest is replicated)."""
        return len(self.moe_layer_ids) * self.num_experts * 3 * self.hidden_size * self.moe_intermediate_size

    def quantized_linears(self) -> list[tuple[int, int, int]]:
        """(count, out, in) of the linears SGLang serves as block FP8 (payload/sync/fp8.py):
        attention q/k/v/o, every expert's gate/up/down and a dense layer's; not the router,
        norms, embeddings."""
        d, f, e, layers = self.hidden_size, self.moe_intermediate_size, self.num_experts, self.num_hidden_layers
        q, kv = self.num_attention_heads * self.head_dim, self.num_key_value_heads * self.head_dim
        moe, dense = len(self.moe_layer_ids), layers - len(self.moe_layer_ids)
        linears = [(layers, q, d), (2 * layers, kv, d), (layers, d, q), (2 * moe * e, f, d), (moe * e, d, f)]
        if dense:
            linears += [(2 * dense, self.intermediate_size, d), (dense, d, self.intermediate_size)]
        return linears

    def publish_bytes(self, precision: str = "bf16") -> int:
        """Bytes one publish moves to each server: bf16, or fp8 (the quantized linears' one byte
        a parameter plus a float32 scale a 128 x 128 block; the rest bf16)."""
        if precision == "bf16":
            return 2 * self.parameters
        if precision != "fp8":
            raise ValueError(f"rollout precision {precision!r}: expected bf16 or fp8")
        quantized = sum(n * o * i for n, o, i in self.quantized_linears())
        scales = sum(n * -(-o // 128) * -(-i // 128) for n, o, i in self.quantized_linears())
        return 2 * (self.parameters - quantized) + quantized + 4 * scales

    @property
    def tensors(self) -> int:
        """HF-named tensors (experts one by one): what a per-tensor publish or load walks."""
        moe = len(self.moe_layer_ids)
        per_layer = 8  # q k v o q_norm k_norm and two norms
        mlp = moe * (1 + 3 * self.num_experts) + (self.num_hidden_layers - moe) * 3
        return self.num_hidden_layers * per_layer + mlp + 2 + (0 if self.tie_word_embeddings else 1)

    # ---- Hugging Face config.json ----

    @classmethod
    def from_hf_dict(cls, data: dict, source: str = "config.json") -> "Qwen3MoeConfig":
        model_type = data.get("model_type")
        if model_type != "qwen3_moe":
            raise ModelConfigError(f"{source}: model_type={model_type!r}: expected 'qwen3_moe' (a Qwen3-MoE checkpoint)")
        unsupported = {
            "hidden_act": ("silu",),
            "attention_bias": (False, None),
            "use_sliding_window": (False, None),
        }
        for name, allowed in unsupported.items():
            if data.get(name, allowed[-1]) not in allowed:
                raise ModelConfigError(f"{source}: {name}={data[name]!r}: only {allowed[0]!r} is supported")
        # transformers 5 writes `num_local_experts` and `rope_parameters`; the released checkpoints
        # (and SGLang) use `num_experts` and `rope_theta`.
        values = dict(data)
        if "num_experts" not in values and "num_local_experts" in values:
            values["num_experts"] = values["num_local_experts"]
        rope = values.get("rope_parameters") or values.get("rope_scaling") or {}
        rope_type = rope.get("rope_type", rope.get("type", "default"))
        if rope_type != "default":
            raise ModelConfigError(f"{source}: rope type {rope_type!r}: only the default rotary embedding is supported")
        if "rope_theta" not in values and "rope_theta" in rope:
            values["rope_theta"] = rope["rope_theta"]
        if values.get("head_dim") is None and "hidden_size" in values and "num_attention_heads" in values:
            values["head_dim"] = values["hidden_size"] // values["num_attention_heads"]
        names = {f.name for f in dataclasses.fields(cls)} - set(cls._RUNTIME_FIELDS)
        required = (
            "vocab_size hidden_size moe_intermediate_size num_hidden_layers num_attention_heads "
            "num_key_value_heads num_experts num_experts_per_tok"
        ).split()
        for name in required:
            if name not in values:
                raise ModelConfigError(f"{source}: required field {name} is missing")
        try:
            return cls(**{k: v for k, v in values.items() if k in names})
        except ModelConfigError as exc:
            raise ModelConfigError(f"{source}: {exc}") from None

    def to_hf_dict(self) -> dict:
        data = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in self._RUNTIME_FIELDS and not f.name.startswith("_")
        }
        data.update(
            architectures=["Qwen3MoeForCausalLM"],
            model_type="qwen3_moe",
            hidden_act="silu",
            attention_bias=False,
            attention_dropout=0.0,
            use_sliding_window=False,
            sliding_window=None,
            initializer_range=0.02,
            use_cache=True,
            output_router_logits=False,
        )
        return data

    @classmethod
    def from_pretrained(cls, path: str | Path) -> "Qwen3MoeConfig":
        """From a Hugging Face checkpoint directory, or a config.json file on its own."""
        config_path = Path(path) if Path(path).suffix == ".json" else Path(path) / "config.json"
        if not config_path.is_file():
            raise ModelConfigError(f"{config_path} does not exist (neither a config.json file nor a Hugging Face "
                                   "checkpoint directory holding one)")
        try:
            data = json.loads(config_path.read_text())
        except json.JSONDecodeError as exc:
            raise ModelConfigError(f"{config_path}: not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ModelConfigError(f"{config_path}: expected a JSON object")
        return cls.from_hf_dict(data, str(config_path))


def tiny_config(**changes) -> Qwen3MoeConfig:
    """A few-layer model for tests and the CPU demo; every width is a multiple of 16 bytes in
    fp32 so torch's grouped GEMM accepts it."""
    base = Qwen3MoeConfig(
        vocab_size=256,
        hidden_size=64,
        intermediate_size=128,
        moe_intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        num_experts=8,
        num_experts_per_tok=2,
        norm_topk_prob=True,
        rope_theta=10000.0,
        max_position_embeddings=1024,
        router_aux_loss_coef=0.01,
    )
    return base.replace(**changes)


# The released checkpoints' config.json files, unchanged, one per model (spec/architectures/):
# what `plan --model NAME` and the environment's checks read for a model named by its release.
ARCHITECTURE_CONFIGS: dict[str, Path] = {path.stem: path for path in sorted((Path(__file__).resolve().parent / "architectures").glob("*.json"))}
ARCHITECTURES: dict[str, Qwen3MoeConfig] = dict(sorted(  # smallest first
    ((name, Qwen3MoeConfig.from_pretrained(path)) for name, path in ARCHITECTURE_CONFIGS.items()),
    key=lambda item: item[1].parameters,
))


def shape_of(model) -> tuple[str, Qwen3MoeConfig]:
    """(name, shape) of a job's model (spec.job.ModelSection): job.model.architecture, else the
    release its folder is named after, else the folder's own config.json. A checkpoint's folder
    name never picks anything else (a fine-tune in /fsx/models/my-sft gets its own shape)."""
    folder = model.path.rstrip("/").rsplit("/", 1)[-1]
    if model.architecture is not None:
        if model.architecture in ARCHITECTURES:
            return model.architecture, ARCHITECTURES[model.architecture]
        path = Path(model.architecture)
        if path.exists():
            name = path.name if path.is_dir() else path.parent.name if path.name == "config.json" else path.stem
            return name, Qwen3MoeConfig.from_pretrained(path)
        raise ModelConfigError(f"job.model.architecture {model.architecture!r}: neither a released model "
                               f"({', '.join(ARCHITECTURES)}) nor a config.json or checkpoint folder here")
    if folder in ARCHITECTURES:
        return folder, ARCHITECTURES[folder]
    if (Path(model.path) / "config.json").is_file():
        return folder, Qwen3MoeConfig.from_pretrained(model.path)
    raise ModelConfigError(
        f"job.model.path {model.path!r}: {folder!r} is not a released model ({', '.join(ARCHITECTURES)}) and its "
        "config.json is not readable here; set job.model.architecture to the release it was trained from, or to "
        "a local copy of its config.json")


def shape_name(model) -> str:
    """The name shape_of gives a job's model."""
    return shape_of(model)[0]
