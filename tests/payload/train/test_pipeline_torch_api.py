"""payload/train/pipeline.py uses private parts of torch.distributed.pipelining; this pins each
against the installed torch so a torch upgrade that moves one fails here, by name, on CPU.

The private names are read from pipeline.py's AST (attribute accesses and method definitions
starting with one underscore on torch objects), so a new private use fails
`test_every_private_name_is_pinned` until it is added to PINNED with its expected signature.
Read against torch 2.13.0 (this venv, as CI); the image runs 2.14.1: run this file there too.
Every message names the torch it checked (TORCH). torch 2.11 has no
PipelineStage._setup_backward_recv_info (a detected difference: the ring needs 2.13 or later).
Not confirmed for 2.14 from source: the code index holds copies of torch's
distributed/pipelining/stage.py that define _setup_backward_recv_info(self, num_microbatches)
and _setup_forward_recv_info(self, num_microbatches, has_backward), but names no version for
them; run this file in the image."""

import ast
import inspect
from pathlib import Path

from torch.distributed.pipelining import PipelineStage, Schedule1F1B

import torch

import payload.train.pipeline as pipeline

TORCH = f"torch {torch.__version__}"

# name -> (owner, parameters it must take, in order, after self)
PINNED = {
    "_step_microbatches": (Schedule1F1B, ["arg_mbs", "kwarg_mbs", "target_mbs", "losses", "return_outputs"]),
    "_has_backward": (Schedule1F1B, None),  # an attribute the schedule sets in __init__
    "_setup_forward_recv_info": (PipelineStage, ["num_microbatches", "has_backward"]),
    "_setup_backward_recv_info": (PipelineStage, ["num_microbatches"]),
}
# Attributes of the stage the ring reads and writes (public names, but their meaning is private).
STAGE_STATE = ("args_recv_info", "grad_recv_info", "chunks")
# Our own private helpers in pipeline.py (not torch's).
OWN = {"_Trunk", "_padded", "_inputs", "_schedule", "_run", "_forward_only", "_RingStage", "_Logprobs"}


def _private_names() -> set[str]:
    tree = ast.parse(Path(pipeline.__file__).read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            names.add(node.attr)
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_") and not node.name.startswith("__"):
            names.add(node.name)
    return names - OWN


def test_every_private_name_is_pinned():
    assert _private_names() == set(PINNED), f"{TORCH}: pipeline.py's private torch names changed: pin them in PINNED"


def test_pinned_methods_keep_their_signatures():
    for name, (owner, params) in PINNED.items():
        if params is None:
            continue
        method = getattr(owner, name, None)
        assert callable(method), f"{TORCH}: {owner.__name__}.{name} is gone"
        got = [p for p in inspect.signature(method).parameters if p != "self"]
        assert got[: len(params)] == params, f"{TORCH}: {owner.__name__}.{name}{inspect.signature(method)}, expected {params} first"


def test_the_schedule_sets_has_backward_and_the_stage_keeps_its_receive_state():
    # Built on a fake stage: Schedule1F1B's __init__ reads num_stages only.
    class Fake:
        num_stages = 2

    schedule = Schedule1F1B(Fake(), 2, loss_fn=lambda *a: 0)
    assert schedule._has_backward is True, TORCH
    assert Schedule1F1B(Fake(), 2)._has_backward is False, TORCH
    source = inspect.getsource(PipelineStage.__init__) + inspect.getsource(inspect.getmro(PipelineStage)[1].__init__)
    for attribute in STAGE_STATE[:2]:
        assert f"self.{attribute}" in source, f"{TORCH}: PipelineStage no longer sets {attribute}"
    # The backward ring sets `chunks` as torch's own _setup_backward_recv_info does.
    assert hasattr(PipelineStage, "_setup_backward_recv_info"), f"{TORCH}: PipelineStage._setup_backward_recv_info is gone"
    assert "self.chunks = num_microbatches" in inspect.getsource(PipelineStage._setup_backward_recv_info), TORCH
    # The forward ring relies on the stage allocating buffers per micro-batch index there.
    assert "for chunk_id in range(num_microbatches)" in inspect.getsource(PipelineStage._setup_forward_recv_info), TORCH
    # stage_backward clears an input's .grad after reading it: ring slots never accumulate.
    from torch.distributed.pipelining import _backward
    assert "val.grad = None" in inspect.getsource(_backward.stage_backward), f"{TORCH}: stage_backward keeps input grads"
