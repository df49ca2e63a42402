"""Code that runs inside the gloo workers (gloo_pool.py); each function takes the EP group first.

Every rank draws the same global problem from a seed, takes its own share of the tokens, and
compares what expert parallelism gives against the single-process answer it computes itself.
"""

from __future__ import annotations

import torch
import torch.distributed as dist

from payload import ep
from payload.model import load_pretrained


def expert_fn(x_ND: torch.Tensor, tokens_per_expert_L: torch.Tensor, first_expert: int) -> torch.Tensor:
    """A stand-in for the experts whose result depends on which expert got the row."""
    expert_N = torch.arange(len(tokens_per_expert_L)).repeat_interleave(tokens_per_expert_L) + first_expert
    scale = (expert_N + 1).to(x_ND.dtype)[:, None]
    return x_ND * scale + expert_N.to(x_ND.dtype)[:, None] / 10


def routing_problem(tokens_per_rank: list[int], num_experts: int, top_k: int, hidden: int, skew: str, seed: int):
    g = torch.Generator().manual_seed(seed)
    total = sum(tokens_per_rank)
    x = torch.randn(total, hidden, generator=g, dtype=torch.float64).float()
    if skew == "first_experts":
        # Only experts 0..top_k-1 are used: with top_k <= experts per rank every other rank
        # and most experts receive nothing.
        idx = torch.stack([torch.randperm(top_k, generator=g) for _ in range(total)]) if total else torch.zeros(0, top_k, dtype=torch.long)
    else:
        idx = torch.stack([torch.randperm(num_experts, generator=g)[:top_k] for _ in range(total)]) if total else torch.zeros(0, top_k, dtype=torch.long)
    w = torch.rand(total, top_k, generator=g)
    grad_out = torch.randn(total, hidden, generator=g)
    return x, idx.long(), w, grad_out


def dispatch_contract(group, backend: str, tokens_per_rank: list[int], num_experts: int, top_k: int, skew: str, seed: int):
    rank = 0 if group is None else dist.get_rank(group)
    hidden = 8
    x_all, idx_all, w_all, g_all = routing_problem(tokens_per_rank, num_experts, top_k, hidden, skew, seed)
    start = sum(tokens_per_rank[:rank])
    mine = slice(start, start + tokens_per_rank[rank])

    dispatcher = ep.build(ep.Config(backend=backend), num_experts, group)
    x = x_all[mine].clone().requires_grad_()
    w = w_all[mine].clone().requires_grad_()
    x_ND, counts_L, handle = dispatcher.dispatch(x, idx_all[mine], w)
    out = dispatcher.combine(expert_fn(x_ND, counts_L, dispatcher.local_expert_offset), handle)
    (out * g_all[mine]).sum().backward()

    # Single-process reference for this rank's tokens.
    xr = x_all[mine].clone().requires_grad_()
    wr = w_all[mine].clone().requires_grad_()
    e = idx_all[mine]
    ref = ((xr[:, None, :] * (e + 1)[..., None] + e[..., None] / 10) * wr[..., None]).sum(1)
    (ref * g_all[mine]).sum().backward()

    lo = dispatcher.local_expert_offset
    expected_counts = torch.bincount(idx_all.reshape(-1), minlength=num_experts)[lo : lo + dispatcher.num_local_experts]
    return {
        "out": (out - ref).abs().max().item() if out.numel() else 0.0,
        "grad_x": (x.grad - xr.grad).abs().max().item() if x.numel() else 0.0,
        "grad_w": (w.grad - wr.grad).abs().max().item() if w.numel() else 0.0,
        "counts_ok": torch.equal(counts_L.cpu(), expected_counts),
        "rows": int(x_ND.shape[0]),
        "dispatcher": type(dispatcher).__name__,
    }


def _grads(model) -> dict[str, torch.Tensor]:
    return {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}


def model_equivalence(group, checkpoint: str, rows_per_rank: list[int], seq_len: int, skewed: bool, seed: int):
    """EP over `group` (all_to_all) against EP=1 on the whole batch: logits and every gradient."""
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    reference = load_pretrained(checkpoint, dtype=torch.float32)
    config = reference.config
    g = torch.Generator().manual_seed(seed)
    batch = sum(rows_per_rank)
    ids = torch.randint(0, config.vocab_size, (batch, seq_len), generator=g)
    mask = torch.ones(batch, seq_len, dtype=torch.long)
    mask[0, :2] = 0  # one left-padded row
    grad_logits = torch.randn(batch, seq_len, config.vocab_size, generator=g)
    num_moe = len(reference.moe_blocks)
    routed = None
    if skewed:
        # Every token to the first experts: the other ranks and experts get no tokens at all.
        k = config.num_experts_per_tok
        routed = torch.arange(k).expand(batch, seq_len, num_moe, k).contiguous()

    out = reference(ids, attention_mask=mask, routed_experts=routed)
    (out.logits * grad_logits).sum().backward()
    ref_grads = _grads(reference)

    model = load_pretrained(checkpoint, dtype=torch.float32, ep_group=group, ep_backend="all_to_all")
    start = sum(rows_per_rank[:rank])
    mine = slice(start, start + rows_per_rank[rank])
    out_ep = model(ids[mine], attention_mask=mask[mine], routed_experts=None if routed is None else routed[mine])
    (out_ep.logits * grad_logits[mine]).sum().backward()

    diffs = {"logits": (out_ep.logits - out.logits[mine]).abs().max().item() if rows_per_rank[rank] else 0.0}
    diffs["routing_equal"] = torch.equal(out_ep.routed_experts, out.routed_experts[mine])
    local_experts = config.num_experts // size
    for name, param in model.named_parameters():
        grad = param.grad if param.grad is not None else torch.zeros_like(param)
        if name.endswith(("experts.gate_up_proj", "experts.down_proj")):
            expected = ref_grads[name][rank * local_experts : (rank + 1) * local_experts]
        else:
            # Data-parallel parameters: each rank saw part of the batch; the sum is the whole.
            dist.all_reduce(grad, group=group)
            expected = ref_grads.get(name, torch.zeros_like(param))
        diffs[name] = (grad - expected).abs().max().item()
    return diffs


def build_message(group, backend: str, num_experts: int = 8) -> str:
    """The dispatcher class ep.build makes here, or its error message."""
    try:
        return type(ep.build(ep.Config(backend=backend), num_experts, group)).__name__
    except ep.EPConfigError as exc:
        return str(exc)
