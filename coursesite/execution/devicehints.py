"""What to do when lesson code asks for more accelerator devices than the build's JAX sees:
a mesh of (2, 4) needs 8 devices, and a laptop or CI runner has one CPU device.

XLA makes one CPU into N devices when `XLA_FLAGS` holds
`--xla_force_host_platform_device_count=N` before JAX is imported: the lesson's first step
can set it, so that the build, main.py and a reader's run all get them (JAX's own sharding
tutorials do so on CPU). Or the lesson declares the hardware that has them, and a cluster
runs it there (`hardware:` in the front matter).
"""

from __future__ import annotations

import math
import re

# JAX's words for a mesh larger than the devices (mesh_utils.create_device_mesh,
# jax.make_mesh), and pmap's for more replicas than devices.
MESH = re.compile(
    r"ValueError: Number of devices (\d+) must (?:equal|be >=) the product of "
    r"mesh_shape \(([\d, ]+)\)"
)
REPLICAS = re.compile(r"requires (\d+) (?:replicas|devices), but only (\d+) XLA devices")


# JAX's words for an operation that only an accelerator's compiler implements (a GPU
# kernel library's custom call, run where JAX has only a CPU).
ONLY_ON = re.compile(r"translation rule for primitive '([\w.-]+)' not found for platform cpu")


# Libraries' words for code that asks for a CUDA GPU where there is none: PyTorch's
# (`.to("cuda")`, `.cuda()`), JAX's (`jax.devices("cuda")`, `jax.config.update(
# "jax_platforms", "gpu")`: NumPyro's `set_platform("gpu")`), TensorFlow's and CuPy's.
NO_GPU = re.compile(
    r"Found no NVIDIA driver|Torch not compiled with CUDA enabled|Unknown backend:? '?(?:cuda|gpu)|"
    r"Invalid platform '(?:cuda|gpu)'|"
    r"no CUDA-capable device|CUDA driver version is insufficient|No CUDA GPUs are available|"
    r"Backend '(?:cuda|gpu)' failed to initialize",
    re.I,
)


NO_GPU_HINT = (
    "the code asks for a CUDA GPU, and the machine that builds the site has none: declare it "
    "(`hardware: gpu` in the front matter) and build the lesson where there is one (a cluster "
    "worker that offers it), or write the step for the CPU (the device JAX or PyTorch picks "
    "by default), or show it without running it, in a ```python norun fence"
)


# An assert that the machine has a CUDA GPU (Flax's FP8 guide:
# `assert jtu.is_cuda_compute_capability_at_least("9.0")`), as the traceback quotes it;
# not the assert's message, after its comma.
ASSERTS_GPU = re.compile(r"^\s*assert\b[^,\n]*(?:cuda|gpu)", re.I | re.M)


def no_gpu_hint(failure: dict) -> str:
    """NO_GPU_HINT for a failure that asks for a CUDA GPU the machine lacks, in a library's
    words or by an assert that one is there; ''."""
    asserted = re.match(r"(?:\w+\.)*AssertionError\b", failure["message"])
    if NO_GPU.search(failure["message"]) or (
        asserted and ASSERTS_GPU.search(failure.get("traceback") or "")
    ):
        return NO_GPU_HINT
    return ""


# Hints that name a lack of the machine, whatever words each library says it in: every
# step that meets one fails for that one cause (blockfailures.py groups them as one).
MACHINE_CAUSES = frozenset({NO_GPU_HINT})


def device_count_hint(message: str) -> str:
    """The hint for a failure `message` that says the code needs more devices, or
    devices of another kind (a GPU it lacks: no_gpu_hint); ''."""
    if only := ONLY_ON.search(message):
        return (
            f"{only.group(1)} runs only on an accelerator, and JAX has only CPUs here: declare "
            "the hardware the lesson needs (`hardware: gpu` in the front matter) and build it "
            "where there is one (a cluster worker that offers it), or show that code without "
            "running it, in a ```python norun fence"
        )
    if mesh := MESH.search(message):
        seen = int(mesh.group(1))
        needed = math.prod(int(size) for size in re.findall(r"\d+", mesh.group(2)))
    elif replicas := REPLICAS.search(message):
        needed, seen = int(replicas.group(1)), int(replicas.group(2))
    else:
        return ""
    if needed <= seen:
        return ""
    return (
        f"the code needs {needed} devices and JAX sees {seen} here: on a machine with only "
        f"CPUs, XLA makes {needed} of them when the lesson's first step sets, before anything "
        f"imports jax, `import os` then `os.environ['XLA_FLAGS'] = "
        f"os.environ.get('XLA_FLAGS', '') + ' --xla_force_host_platform_device_count={needed}'`"
        " (main.py and a reader's run get them too); or declare the hardware that has them "
        "(`hardware: tpu` in the front matter) and build it there"
    )
