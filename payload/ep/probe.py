"""DeepEP's native set-up, tried in a child process before a trainer relies on it.

DeepEP v2 builds its buffer in C++ (an NCCL device communicator, symmetric memory, JIT-compiled
kernels). A fault there is a signal, not a Python exception: the process dies with exit 139 and
no line, `auto` never reaches its fallback and an explicit `deepep` never says why. So the
preflight (payload.ep.preflight) first runs this module on the process's own GPU:

    python -m payload.ep.probe --device 0

The child imports DeepEP, binds a one-rank NCCL group to the device (the order the trainer
keeps: DeepEP's import before any communicator, then init_process_group(device_id=...)), builds
an ElasticBuffer and sends tokens through dispatch and combine, checking they come back. Its
end becomes the reason DeepEP cannot run here (`reason_from_child`): an error line, a signal
(SIGSEGV named), or a timeout; None when it passed.

What one rank cannot show: GIN across nodes and the peers' memory registration. Those fail as
exceptions in the ranks' own buffer set-up (payload.ep.build falls back or names them).
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys

# Seconds the child may take: the first run JIT-compiles DeepEP's kernels (EP_JIT_CACHE_DIR keeps
# them for the trainer's own buffer and the next start).
PROBE_TIMEOUT_S = 900
# A shape every DeepEP kernel family handles; the trainer's own sizes are compiled when it builds
# its buffer.
HIDDEN, TOP_K, EXPERTS, TOKENS = 4096, 8, 128, 64


def probe_command(device: int) -> list[str]:
    return [sys.executable, "-m", "payload.ep.probe", "--device", str(device)]


def reason_from_child(command: list[str], what: str, timeout_s: float = PROBE_TIMEOUT_S) -> str | None:
    """Run `command`; None when it exits 0, else one line saying how `what` failed: the child's
    last stderr line, and the signal that killed it where one did."""
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return f"{what} did not finish in {timeout_s:g} s (a hung native call)"
    if result.returncode == 0:
        return None
    lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
    if result.returncode < 0:
        # faulthandler's headline ("Fatal Python error: Segmentation fault"), not its stack.
        fatal = next((line for line in lines if line.startswith("Fatal Python error")), "")
        name = signal.Signals(-result.returncode).name
        return f"{what} crashed with {name} in native code" + (f" ({fatal})" if fatal else "")
    last = lines[-1].removeprefix("error: ") if lines else ""
    return f"{what} failed" + (f": {last}" if last else f" (exit {result.returncode})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m payload.ep.probe", description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", type=int, default=0, help="the CUDA device to probe")
    args = parser.parse_args(argv)
    import faulthandler

    faulthandler.enable()  # a native fault prints where it happened before the signal ends us
    import torch
    import torch.distributed as dist

    if not torch.cuda.is_available():
        print("error: needs a CUDA GPU", file=sys.stderr)
        return 1
    try:
        import deep_ep  # before any NCCL communicator: its check_nccl_so counts the mapped libnccl*
    except Exception as exc:  # noqa: BLE001 - DeepEP signals every unmet prerequisite differently
        print(f"error: `import deep_ep` failed with {type(exc).__name__}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1, device_id=device)
    try:
        buffer = deep_ep.ElasticBuffer(dist.group.WORLD, num_max_tokens_per_rank=TOKENS, hidden=HIDDEN, num_topk=TOP_K)
        x = torch.randn(TOKENS, HIDDEN, dtype=torch.bfloat16, device=device)
        idx = torch.stack([torch.randperm(EXPERTS, device=device)[:TOP_K] for _ in range(TOKENS)])
        weights = torch.full((TOKENS, TOP_K), 1 / TOP_K, dtype=torch.float32, device=device)
        recv_x, _, _, handle, _ = buffer.dispatch(x, topk_idx=idx, topk_weights=weights, num_experts=EXPERTS)
        # One rank: every token arrives once and combine returns it (no partials to sum).
        combined, _, _ = buffer.combine(recv_x, handle)
        torch.cuda.synchronize()
        if not torch.allclose(combined.float(), x.float(), rtol=1e-2, atol=1e-2):
            print("error: DeepEP's dispatch and combine did not return the tokens sent", file=sys.stderr)
            return 1
    except Exception as exc:  # noqa: BLE001 - DeepEP's set-up raises whatever its C++ asserts
        print(f"error: {type(exc).__name__}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    finally:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
