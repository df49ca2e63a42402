"""On a GPU, the trainer's groups have NCCL communicators before any DeepEP buffer is built.

DeepEP v2 reuses torch's communicator for its group (deep_ep/utils/comm.py: backend._comm_ptr(),
EP_REUSE_NCCL_COMM on by default) and passes it to NCCL's device API; a 0 there segfaults
(ncclTeamWorld(NULL)). torch creates communicators lazily unless the default group is bound to
its device. Each case runs in a fresh interpreter: a process has one default group.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

# What the trainer does (payload.train.parallel.init_world) and what DeepEP would be handed: the
# default group's, a new_group's and the device mesh's expert group's communicator addresses.
BOUND = """
import json, torch, torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from payload.train.parallel import init_world
from spec.layout import TrainerLayout
init_world(TrainerLayout(1, 1, 1, 1))
cuda = torch.device("cuda")
groups = {"world": dist.group.WORLD, "new_group": dist.new_group([0]),
          "mesh_ep": init_device_mesh("cuda", (1, 1), mesh_dim_names=("dp", "ep"))["ep"].get_group()}
print(json.dumps({name: g._get_backend(cuda)._comm_ptr() for name, g in groups.items()}))
"""

# torch's default without device_id (what init_world did before), then DeepEP's wrapper's own
# guard (payload.ep.deepep.bind_communicator) on the same group.
LAZY = """
import json, os, torch, torch.distributed as dist
torch.cuda.set_device(0)
dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
from payload.ep.deepep import bind_communicator
group = dist.new_group([0])
before = group._get_backend(torch.device("cuda"))._comm_ptr()
print(json.dumps({"before": before, "after": bind_communicator(group)}))
"""


def run(code: str) -> dict:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    environment.pop("RANK", None)
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=environment, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.gpu
def test_init_world_binds_every_group_to_its_device():
    pointers = run(BOUND)
    print("communicator addresses after init_world:", pointers)
    assert all(pointers.values()), pointers


@pytest.mark.gpu
def test_an_unbound_groups_communicator_is_created_before_deepep_sees_it():
    pointers = run(LAZY)
    print("unbound group's communicator before / after bind_communicator:", pointers)
    assert pointers["before"] == 0 and pointers["after"] != 0
