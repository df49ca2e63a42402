"""The sparse MoE block: softmax top-k router, token dispatch, grouped SwiGLU experts, combine.

Parameter names mirror the HF module tree (`mlp.gate.weight`, `mlp.experts.gate_up_proj`,
`mlp.experts.down_proj`); the checkpoint stores experts one by one
(`mlp.experts.{e}.gate_proj.weight` ...), checkpoint.py converts.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from payload.ep.dispatcher import Dispatcher, LocalDispatcher, LocalHandle, count_per_expert, unpermute_and_sum
from spec.model_shape import ExpertsImpl, ExpertsPrecision
from payload.model.fp8_experts import fp8_grouped_linear
from payload.model.swiglu import weighted_swiglu


@dataclass
class RouterStats:
    """One layer's share of the load-balancing loss (Switch Transformer eq. 4-6, as HF sums it)."""

    assignments_E: torch.Tensor  # top-k picks per expert, padding excluded (no gradient)
    probability_sum_E: torch.Tensor  # router probabilities summed over real tokens (gradient)
    tokens: torch.Tensor  # number of real tokens


class Router(nn.Module):
    def __init__(self, hidden_size: int, num_experts: int, top_k: int, norm_topk_prob: bool) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(num_experts, hidden_size))
        self.top_k = top_k
        self.norm_topk_prob = norm_topk_prob

    def forward(
        self, x_TD: torch.Tensor, replay_idx_TK: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Returns (expert ids [T,K], weights [T,K] in x's dtype, probabilities [T,E] fp32).

        With `replay_idx_TK` the experts are the given ones (what the rollout engine chose) and
        only their weights are computed here, so gradients still reach the router.
        """
        logits_TE = F.linear(x_TD, self.weight)
        probs_TE = torch.softmax(logits_TE, dim=-1, dtype=torch.float32)
        if replay_idx_TK is None:
            weight_TK, idx_TK = torch.topk(probs_TE, self.top_k, dim=-1)
        else:
            idx_TK = replay_idx_TK.to(device=x_TD.device, dtype=torch.int64)
            weight_TK = probs_TE.gather(1, idx_TK)
        if self.norm_topk_prob:
            weight_TK = weight_TK / weight_TK.sum(dim=-1, keepdim=True)
        return idx_TK, weight_TK.to(logits_TE.dtype), probs_TE


def grouped_mm_supported(x: torch.Tensor, *weights: torch.Tensor) -> bool:
    """Whether torch's grouped GEMM takes these operands here: CUDA needs Hopper (sm90+) and
    16-bit floats; the CPU kernel takes fp32/bf16; both need 16-byte aligned rows."""
    if not hasattr(F, "grouped_mm"):
        return False
    if x.device.type == "cuda":
        if torch.cuda.get_device_capability(x.device) < (9, 0) or x.dtype not in (torch.bfloat16, torch.float16):
            return False
    elif x.device.type != "cpu" or x.dtype not in (torch.float32, torch.bfloat16):
        return False
    return all(w.shape[-1] * w.element_size() % 16 == 0 and w.shape[-2] * w.element_size() % 16 == 0 for w in weights)


class _GroupedLinear(torch.autograd.Function):
    """y_NO = x_NI @ w_EOI[e].T for each expert's rows (offsets_E = cumulative row counts).

    Autograd through F.grouped_mm on the transposed weight produces the weight gradient as
    [E, I, O], which is then copied into the parameter's [E, O, I] layout. Swapping the
    operands, dW_e = g_e^T x_e, writes it in the parameter's layout directly (0.3-0.7 ms less
    per layer step on an H200: bench/moe_layer.py, `ours` against `ours_autograd_wgrad`).
    """

    @staticmethod
    def forward(ctx, x_NI, w_EOI, offsets_E):
        ctx.save_for_backward(x_NI, w_EOI, offsets_E)
        return F.grouped_mm(x_NI, w_EOI.transpose(-2, -1), offs=offsets_E)

    @staticmethod
    def backward(ctx, grad_NO):
        x_NI, w_EOI, offsets_E = ctx.saved_tensors
        grad_NO = grad_NO.contiguous()
        grad_x = F.grouped_mm(grad_NO, w_EOI, offs=offsets_E) if ctx.needs_input_grad[0] else None
        grad_w = F.grouped_mm(grad_NO.t(), x_NI, offs=offsets_E) if ctx.needs_input_grad[1] else None
        return grad_x, grad_w, None


grouped_linear = _GroupedLinear.apply


class GroupedExperts(nn.Module):
    """SwiGLU experts stored as 3-D tensors, run on tokens already grouped by expert.

    gate_up_proj [L, 2F, D] (gate rows then up rows, as HF fuses them), down_proj [L, D, F];
    L is the number of experts on this rank, `expert_offset` the global id of the first.
    `precision` "fp8": the forward and input-gradient GEMMs in e4m3 (payload/model/fp8_experts.py),
    always on torch's grouped GEMM path.
    """

    def __init__(self, num_experts: int, hidden_size: int, intermediate_size: int, impl: ExpertsImpl = "auto",
                 precision: ExpertsPrecision = "bf16") -> None:
        super().__init__()
        self.gate_up_proj = nn.Parameter(torch.empty(num_experts, 2 * intermediate_size, hidden_size))
        self.down_proj = nn.Parameter(torch.empty(num_experts, hidden_size, intermediate_size))
        self.intermediate_size = intermediate_size
        self.impl = impl
        self.precision = precision
        self.expert_offset = 0

    @property
    def num_local_experts(self) -> int:
        return self.gate_up_proj.shape[0]

    # "auto" takes the fused path up to this many rows per expert (tokens x top-k / experts).
    # Measured on an H200 (bench/README.md, #31): at ~128 rows the Triton GEMMs beat torch's
    # CUTLASS grouped kernel outright (DeepSeek-V3-like layer compiled 32.5 -> 27.1 ms); at
    # ~1,024 the grouped GEMM with the one-pass K-sum (payload/ep/sum_rows_triton.py) wins
    # (Qwen3-30B-A3B compiled 8.0 against 8.5 ms fused), and at ~2,048 (the one-GPU train step)
    # the fused path was 2% slower, so above the line the grouped GEMM stays.
    FUSED_MAX_ROWS_PER_EXPERT = 512

    def use_fused(self, x_TD: torch.Tensor, rows: int | None = None) -> bool:
        """Whether SparseMoeBlock hands its local permutation to fused_experts.py: when asked
        for, or on "auto" where its kernels run (CUDA with Triton, 16-bit, K a block multiple)
        and pay (`rows` = tokens x top-k at most FUSED_MAX_ROWS_PER_EXPERT per expert).
        Never in fp8: the fused kernels are bf16 GEMMs."""
        if self.precision == "fp8":
            return False
        if self.impl == "fused":
            return True
        if self.impl != "auto" or not x_TD.is_cuda or x_TD.shape[0] == 0:
            return False
        if rows is not None and rows > self.FUSED_MAX_ROWS_PER_EXPERT * self.num_local_experts:
            return False
        try:
            from payload.model import fused_experts
        except ImportError:  # no Triton in this environment
            return False
        return fused_experts.supported(x_TD, self.gate_up_proj, self.down_proj)

    def forward(
        self,
        x_ND: torch.Tensor,
        tokens_per_expert_L: torch.Tensor | None = None,
        weight_N: torch.Tensor | None = None,
        *,
        topk_TK: tuple[torch.Tensor, torch.Tensor] | None = None,
    ) -> torch.Tensor:
        """Each row through its expert; with `weight_N` each row's output is scaled by it (folded
        into the SwiGLU activation, before the linear down projection: payload/model/swiglu.py).

        With `topk_TK` = (expert ids, routing weights), x is in token order and every expert is
        local: the fused path (use_fused) returns each token's weighted sum over its K experts.
        It is a call of this module, not a reach into its parameters, so FSDP2's hooks gather
        and cast them first."""
        if topk_TK is not None:
            from payload.model.fused_experts import fused_local_experts

            return fused_local_experts(x_ND, *topk_TK, self.gate_up_proj, self.down_proj)
        use_grouped = self.precision == "fp8" or self.impl == "grouped_mm" or (
            self.impl in ("auto", "fused") and grouped_mm_supported(x_ND, self.gate_up_proj, self.down_proj)
        )
        if use_grouped:
            return self._grouped_mm(x_ND, tokens_per_expert_L, weight_N)
        return self._loop(x_ND, tokens_per_expert_L, weight_N)

    def _activation(self, h_NF2: torch.Tensor, weight_N: torch.Tensor | None) -> torch.Tensor:
        if weight_N is not None:
            return weighted_swiglu(h_NF2, weight_N)
        gate_NF, up_NF = h_NF2.split(self.intermediate_size, dim=-1)
        return F.silu(gate_NF) * up_NF

    def _grouped_mm(self, x_ND, tokens_per_expert_L, weight_N) -> torch.Tensor:
        offsets_L = torch.cumsum(tokens_per_expert_L, dim=0, dtype=torch.int32)
        linear = fp8_grouped_linear if self.precision == "fp8" else grouped_linear
        h_NF2 = linear(x_ND, self.gate_up_proj, offsets_L)
        return linear(self._activation(h_NF2, weight_N), self.down_proj, offsets_L)

    def _loop(self, x_ND, tokens_per_expert_L, weight_N) -> torch.Tensor:
        counts = tokens_per_expert_L.tolist()
        weights = [None] * len(counts) if weight_N is None else torch.split(weight_N, counts)
        outputs = []
        for e, (x_nD, w_n) in enumerate(zip(torch.split(x_ND, counts), weights)):
            outputs.append(F.linear(self._activation(F.linear(x_nD, self.gate_up_proj[e]), w_n), self.down_proj[e]))
        if not outputs:
            return x_ND.new_zeros(0, self.down_proj.shape[1])
        return torch.cat(outputs)


class SparseMoeBlock(nn.Module):
    """Route, dispatch, compute, combine. Expert parallelism only swaps `dispatcher` and shards
    `experts` (payload.ep.apply_expert_parallel); this code has no branch for it."""

    def __init__(
        self,
        hidden_size: int,
        moe_intermediate_size: int,
        num_experts: int,
        top_k: int,
        norm_topk_prob: bool,
        experts_impl: ExpertsImpl = "auto",
        experts_precision: ExpertsPrecision = "bf16",
    ) -> None:
        super().__init__()
        self.num_experts = num_experts
        self.gate = Router(hidden_size, num_experts, top_k, norm_topk_prob)
        self.experts = GroupedExperts(num_experts, hidden_size, moe_intermediate_size, experts_impl, experts_precision)
        self.dispatcher: Dispatcher = LocalDispatcher(num_experts)
        # Fold the routing weights into the experts' SwiGLU (payload/model/swiglu.py) when the
        # dispatch is local: None = on CUDA, where the fused kernel pays; elsewhere the layer
        # keeps the weighted combine, so CPU runs match the expert-parallel backends to fp32
        # rounding order (tests/payload/ep).
        self.fold_routing_weights: bool | None = None

    def forward(
        self,
        x_BTD: torch.Tensor,
        replay_idx_BTK: torch.Tensor | None = None,
        token_mask_BT: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, RouterStats]:
        b, t, d = x_BTD.shape
        x_TD = x_BTD.reshape(b * t, d)
        replay_idx_TK = None if replay_idx_BTK is None else replay_idx_BTK.reshape(b * t, replay_idx_BTK.shape[-1])
        idx_TK, weight_TK, probs_TE = self.gate(x_TD, replay_idx_TK)

        fold = self.fold_routing_weights if self.fold_routing_weights is not None else x_TD.is_cuda
        if fold and isinstance(self.dispatcher, LocalDispatcher) and self.experts.use_fused(x_TD, idx_TK.numel()):
            # The permutation lives in the expert GEMMs' loads and stores (fused_experts.py).
            out_TD = self.experts(x_TD, topk_TK=(idx_TK, weight_TK))
            stats = self._router_stats(idx_TK, probs_TE, token_mask_BT)
            return out_TD.view(b, t, d), idx_TK.view(b, t, idx_TK.shape[-1]), stats

        x_ND, tokens_per_expert_L, handle = self.dispatcher.dispatch(x_TD, idx_TK, weight_TK)
        if fold and isinstance(handle, LocalHandle):
            # No communication: the routing weights go into the experts' activation, and the
            # combine is the plain sum of each token's K rows (one N x D pass fewer each way).
            weight_N = weight_TK.reshape(-1).index_select(0, handle.order_N)
            y_ND = self.experts(x_ND, tokens_per_expert_L, weight_N)
            out_TD = unpermute_and_sum(y_ND, handle.order_N, handle.inv_order_N, idx_TK.shape[1])
        else:
            y_ND = self.experts(x_ND, tokens_per_expert_L)
            out_TD = self.dispatcher.combine(y_ND, handle)

        stats = self._router_stats(idx_TK, probs_TE, token_mask_BT)
        return out_TD.view(b, t, d), idx_TK.view(b, t, idx_TK.shape[-1]), stats

    def _router_stats(self, idx_TK, probs_TE, token_mask_BT) -> RouterStats:
        if token_mask_BT is None:
            with torch.no_grad():
                assignments = count_per_expert(idx_TK, self.num_experts).to(torch.float32)
            tokens = torch.tensor(float(idx_TK.shape[0]), device=idx_TK.device)
            return RouterStats(assignments, probs_TE.sum(0), tokens)
        mask_T = token_mask_BT.reshape(-1).to(torch.float32)
        with torch.no_grad():
            assignments = torch.zeros(self.num_experts, device=idx_TK.device).scatter_add_(
                0, idx_TK.reshape(-1), mask_T.repeat_interleave(idx_TK.shape[1])
            )
        return RouterStats(assignments, (probs_TE * mask_T[:, None]).sum(0), mask_T.sum())


def load_balancing_loss(stats: list[RouterStats], num_experts: int) -> torch.Tensor:
    """E · Σ_e f_e · P_e with f and P averaged over all layers' tokens together, which is how
    `transformers`' load_balancing_loss_func combines layers (so the two report the same value)."""
    tokens = sum(s.tokens for s in stats).clamp(min=1.0)
    f_E = sum(s.assignments_E for s in stats) / tokens
    p_E = sum(s.probability_sum_E for s in stats) / tokens
    return num_experts * torch.sum(f_E * p_E)
