"""`accept-nccl`, `accept-deepep` and `accept-sglang`: the fabric and the serving path, checked with numbers.

    torchrun ... -m payload accept-nccl --min-busbw-gbs 300   # all-reduce across the train nodes
    python -m payload accept-deepep --num-processes 8          # DeepEP v2's own test, one pod per node
    python -m payload accept-sglang --url http://rollout-server-0...:30000

accept-nccl reports NCCL all-reduce bus bandwidth per message size (nccl-tests' definition:
bytes x 2(n-1)/n / time) and fails below --min-busbw-gbs at the largest size. A p5en.48xlarge
has 16 x 200 Gb/s EFA = 400 GB/s per node; healthy multi-node all-reduce at 1 GiB reaches
roughly 300 GB/s or more of bus bandwidth, and TCP sockets give under 25 GB/s.
accept-deepep runs the EFA start-up check the trainer runs, checks that DeepEP imports, then
DeepEP's own tests/elastic/test_ep.py from the image (the Dockerfile copies tests/ of the commit
it builds DeepEP from to DEEPEP_TESTS; nothing is downloaded at run time). The test checks every
dispatch/combine case bitwise against its NCCL reference and prints each rank's scale-up (NVLink,
"SU") and scale-out (EFA through NCCL GIN, "SO") bandwidth; this prints the test's output and then
the median and the lowest of each over this pod's ranks. Its multi-node rendezvous is the test's
own (MASTER_ADDR, MASTER_PORT, WORLD_SIZE = nodes, RANK = node index).
accept-sglang generates, publishes one tensor of the served checkpoint back to the server
through the real weight-update group (an identity update at a new version), and checks that
/model_info and the next response report that version.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

# Where the image holds DeepEP's tests/ at the commit it builds DeepEP from (Dockerfile, the
# deepep-build stage; tests/image/test_pins.py holds the two equal).
DEEPEP_TESTS = "/opt/deepep/tests"
DEEPEP_TEST_EP = f"{DEEPEP_TESTS}/elastic/test_ep.py"
# One per-rank result line of test_ep.py at DEEPEP_COMMIT (its dist_print calls), e.g.
# "   * EP:   3/16 | dispatch: 41 GB/s (SO), 310 GB/s (SU), 412.3 us, 1234 bytes | copy: ..."
_EP_FIGURES = re.compile(r"^\s*[*\-#@+] EP:\s*\d+/(?P<ranks>\d+) \| (?P<op>[a-z ]+): "
                         r"(?P<so>\d+) GB/s \(SO\), (?P<su>\d+) GB/s \(SU\)")


def register(subparsers) -> None:
    nccl = subparsers.add_parser("accept-nccl", help="NCCL all-reduce bus bandwidth across the ranks (under torchrun)")
    nccl.add_argument("--sizes-mb", default="64,256,1024", help="message sizes in MiB, comma-separated")
    nccl.add_argument("--iters", type=int, default=20)
    nccl.add_argument("--min-busbw-gbs", type=float, default=0.0,
                      help="fail when the largest size's bus bandwidth (GB/s) is below this (0: report only)")
    nccl.set_defaults(run=run_nccl)
    deepep = subparsers.add_parser("accept-deepep", help="DeepEP v2's own test_ep.py from the image, after the EFA check")
    deepep.add_argument("--num-processes", type=int, default=8, help="GPUs (ranks) on this node")
    deepep.add_argument("--test", default=DEEPEP_TEST_EP, help=f"DeepEP's test script (default: the image's, {DEEPEP_TEST_EP})")
    deepep.set_defaults(run=run_deepep)
    smoke = subparsers.add_parser("accept-sglang", help="generate, one distributed weight update, version check")
    smoke.add_argument("--url", required=True, help="a rollout server (SGLang) URL")
    smoke.add_argument("--backend", default="nccl", choices=("nccl", "gloo"))
    smoke.add_argument("--ranks-per-server", type=int, default=8, help="the server's tensor-parallel size")
    smoke.add_argument("--dtype", default="bfloat16")
    smoke.set_defaults(run=run_sglang)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def run_nccl(args: argparse.Namespace) -> int:
    import torch
    import torch.distributed as dist

    from payload.common.efa import EfaError, enforce_if_required

    try:
        sizes = [int(s) << 20 for s in args.sizes_mb.split(",")]
        network = enforce_if_required()
    except ValueError:
        return _fail(f"--sizes-mb {args.sizes_mb!r}: expected MiB integers like 64,256,1024")
    except EfaError as exc:
        return _fail(str(exc))
    cuda = torch.cuda.is_available()
    dist.init_process_group("nccl" if cuda else "gloo")
    rank, n = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    results = []
    for size in sizes:
        x = torch.ones(size // 4, dtype=torch.float32, device=device)
        dist.all_reduce(x)  # warm-up: connections are set up on first use
        if cuda:
            torch.cuda.synchronize()
        dist.barrier()
        start = time.perf_counter()
        for _ in range(args.iters):
            dist.all_reduce(x)
        if cuda:
            torch.cuda.synchronize()
        seconds = (time.perf_counter() - start) / args.iters
        busbw = size * 2 * (n - 1) / n / seconds / 1e9
        results.append((size, seconds, busbw))
    dist.destroy_process_group()
    if rank != 0:
        return 0
    print(f"all-reduce over {n} ranks ({'NCCL on ' + network if network else 'NCCL' if cuda else 'gloo'}):")
    for size, seconds, busbw in results:
        print(f"  {size >> 20:6d} MiB  {seconds * 1e3:9.2f} ms  bus bandwidth {busbw:8.2f} GB/s")
    largest = results[-1][2]
    if largest < args.min_busbw_gbs:
        return _fail(f"bus bandwidth {largest:.1f} GB/s at {results[-1][0] >> 20} MiB is below {args.min_busbw_gbs} GB/s")
    return 0


def deepep_figures(lines) -> dict[str, dict[str, list[int]]]:
    """{operation: {"SU": [GB/s per rank and case], "SO": [...]}} from test_ep.py's output."""
    figures: dict[str, dict[str, list[int]]] = {}
    for line in lines:
        match = _EP_FIGURES.match(line)
        if match:
            op = figures.setdefault(match["op"], {"SU": [], "SO": []})
            op["SU"].append(int(match["su"]))
            op["SO"].append(int(match["so"]))
    return figures


def run_deepep(args: argparse.Namespace) -> int:
    from payload.common.efa import EfaError, enforce_if_required

    try:
        network = enforce_if_required()  # the trainer's start-up check, before any communicator
    except EfaError as exc:
        return _fail(str(exc))
    test = Path(args.test)
    if not test.is_file():
        return _fail(f"DeepEP's test {test} is not here (the image copies DeepEP's tests/ to {DEEPEP_TESTS})")
    from payload.ep.deepep import deepep_unavailable_reason

    # The import's own checks (DeepEP's NCCL check included) in this process, before the test's
    # processes make the same import; no NCCL communicator exists here, so none maps the plugin.
    reason = deepep_unavailable_reason()
    if reason is not None:
        return _fail(reason)
    nodes = os.environ.get("WORLD_SIZE", "1")
    print(f"DeepEP {test} over {nodes} node(s) x {args.num_processes} GPUs"
          f"{' (NCCL on ' + network + ')' if network else ''}", flush=True)
    output = []
    process = subprocess.Popen([sys.executable, str(test), "--num-processes", str(args.num_processes)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    for line in process.stdout:
        sys.stdout.write(line)
        output.append(line)
    returncode = process.wait()
    if returncode != 0:
        return _fail(f"DeepEP's {test.name} exited {returncode}: a failed check or a timeout (its output is above)")
    figures = deepep_figures(output)
    if not figures:
        return _fail(f"DeepEP's {test.name} passed but printed no bandwidth figures")
    print(f"DeepEP {test.name}: every case passed its bitwise checks; GB/s per rank, median / lowest over "
          f"this pod's ranks and cases (SU: scale-up, NVLink; SO: scale-out, EFA through NCCL GIN):")
    for op, by_domain in figures.items():
        # One node has no scale-out traffic: its SO figures are all 0 and say nothing.
        cells = [f"{domain} {statistics.median(values):6.0f} / {min(values):4d}"
                 for domain, values in by_domain.items() if domain == "SU" or any(values)]
        print(f"  {op:18s} " + "   ".join(cells))
    return 0


def _smallest_tensor(model_path: str):
    """(name, tensor) of the smallest tensor in the served checkpoint's safetensors files."""
    from pathlib import Path

    from safetensors import safe_open

    best = None
    for path in sorted(Path(model_path).glob("*.safetensors")):
        with safe_open(str(path), framework="pt") as f:
            for name in f.keys():
                numel = 1
                for d in f.get_slice(name).get_shape():
                    numel *= d
                if best is None or numel < best[0]:
                    best = (numel, path, name)
    if best is None:
        raise FileNotFoundError(f"no *.safetensors in {model_path}")
    with safe_open(str(best[1]), framework="pt") as f:
        return best[2], f.get_tensor(best[2])


def run_sglang(args: argparse.Namespace) -> int:
    import httpx
    import numpy as np

    from payload.common.efa import EfaError, enforce_if_required
    from payload.rollout.client import GenerationError, SamplingParams, SGLangClient
    from payload.sync.client import RolloutServerClient, RolloutServerError
    from payload.sync.publisher import PublishError, WeightPublisher

    prompt = np.array([1, 2, 3, 4])
    sampling = SamplingParams(temperature=0.0, max_new_tokens=8)
    generator = SGLangClient.Config(url=args.url, max_attempts=3).build()
    server = RolloutServerClient(args.url)
    try:
        if args.backend == "nccl":
            enforce_if_required()
        [first] = generator.generate(prompt, 1, sampling)
        print(f"generate: {len(first.token_ids_T)} tokens at weight version {first.weight_version}")
        model_path = httpx.get(f"{args.url}/model_info", timeout=10).json()["model_path"]
        name, tensor = _smallest_tensor(model_path)
        served = server.weight_version()
        version = int(served) + 1 if served.isdigit() else 1
        publisher = WeightPublisher.Config(servers=[args.url], ranks_per_server=args.ranks_per_server,
                                           backend=args.backend, dtype=args.dtype).build()
        try:
            start = time.perf_counter()
            publisher.publish([(name, tensor)], version=version)
            print(f"update_weights_from_distributed: {name} {tuple(tensor.shape)} as version {version} "
                  f"in {time.perf_counter() - start:.2f} s")
        finally:
            publisher.close()
        reported = server.weight_version()
        [after] = generator.generate(prompt, 1, sampling)
        if reported != str(version) or after.weight_version != str(version):
            return _fail(f"published version {version}, but /model_info says {reported!r} "
                         f"and a response says {after.weight_version!r}")
        print(f"version check: /model_info and responses report {version}")
        return 0
    except (EfaError, GenerationError, RolloutServerError, PublishError, FileNotFoundError, httpx.HTTPError) as exc:
        return _fail(str(exc))
    finally:
        generator.close()
        server.close()
