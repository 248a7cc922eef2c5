"""The environment variables lesson code sees: an allowlist, not the build's environment.

A build runs with whatever its shell or CI job holds (a DEPLOY_TOKEN, cloud credentials),
and lesson code that printed `os.environ` would put them on a public page. Lessons get the
variables a Python program needs to find its tools, its locale and its accelerators, the
few the build sets itself, and those the course names in `settings.pass_environment`.
"""

from __future__ import annotations

import os
from pathlib import Path

# Passed through by name: where programs are, the locale and time zone, temporary files,
# the virtual environment.
PASSED = frozenset(
    "PATH LANG LANGUAGE TZ TMPDIR TEMP TMP VIRTUAL_ENV SYSTEMROOT PYTHONPATH".split()
)
# Passed through by prefix: the locale, and what JAX, XLA and accelerators read.
PASSED_PREFIXES = ("LC_", "JAX_", "XLA_", "CUDA_", "TPU_", "NVIDIA_", "ROCR_", "HIP_")


def lesson_environment(work: Path, threads: int, passed: list[str]) -> dict[str, str]:
    """The environment of a lesson's processes running in `work` with `threads` threads;
    `passed` names more variables to pass through (settings.pass_environment)."""
    wanted = PASSED | set(passed)
    env = {
        name: value
        for name, value in os.environ.items()
        if name in wanted or name.startswith(PASSED_PREFIXES)
    }
    env.update(
        HOME=str(work),
        MPLBACKEND="Agg",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",
        OMP_NUM_THREADS=str(threads),
        OPENBLAS_NUM_THREADS=str(threads),
        MKL_NUM_THREADS=str(threads),
    )
    if threads == 1:
        flags = env.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false"
        env["XLA_FLAGS"] = flags.strip()
    return env
