"""The environment variables lesson code sees: an allowlist, not the build's environment.

A build runs with whatever its shell or CI job holds (a DEPLOY_TOKEN, cloud credentials),
and lesson code that printed `os.environ` would put them on a public page. Lessons get the
variables a Python program needs to find its tools, its locale and its accelerators, the
few the build sets itself, and those the course names in `settings.pass_environment`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from coursesite.execution.lessonoutputs import FIGURE_DEFAULTS

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
        # Python's own output unbuffered, as a reader's terminal shows it line by line:
        # a print and a child's output that follows it (os.system, subprocess) come in the
        # order they were written, in main.py's run as in the build's, which keeps each
        # step's fd 1 and 2 (runner.py's fdcapture.py).
        PYTHONUNBUFFERED="1",
        OMP_NUM_THREADS=str(threads),
        OPENBLAS_NUM_THREADS=str(threads),
        MKL_NUM_THREADS=str(threads),
    )
    if threads == 1:
        flags = env.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false"
        env["XLA_FLAGS"] = flags.strip()
    return env


IMPORT_GUARD = Path(__file__).with_name("importguard.py")
RUN_TIME_IMPORTS = "run-time-imports.jsonl"  # in the guard's folder
REFUSED_IMPORTS = "refused-imports.jsonl"  # in the guard's folder
SHIFTED_CLOCK = Path(__file__).with_name("shiftedclock.py")
WHOLE_PRINTS = Path(__file__).with_name("wholeprints.py")
PROGRAM_LIMITS = Path(__file__).with_name("programlimits.py")
# How far ahead the reader-style main.py run's wall clock is: a year, a month, days and
# hours, so that a printed year, month, day, weekday or hour all differ from the build's.
CLOCK_SHIFT_SECONDS = (400 * 24 + 5) * 3600 + 17 * 60


def reader_environment(
    folder: Path, threads: int, passed: list[str], hidden: dict[str, str], run: str = ""
) -> dict[str, str]:
    """The reader-style `python main.py` run's environment: the lesson's, with only the
    distributions a reader installs importable (`hidden` are not) and its wall clock
    ahead, through a sitecustomize in `folder`/guard; a later `run` of main.py has its own
    (`folder`/guard-2, for `run` "-2", in `folder`/reader-2)."""
    guard = folder / f"guard{run}"
    guard.mkdir()
    (guard / "sitecustomize.py").write_bytes(IMPORT_GUARD.read_bytes())
    (guard / "_coursesite_clock.py").write_bytes(SHIFTED_CLOCK.read_bytes())
    (guard / "_coursesite_prints.py").write_bytes(WHOLE_PRINTS.read_bytes())
    (guard / "_coursesite_programs.py").write_bytes(PROGRAM_LIMITS.read_bytes())
    # The figure settings of the lesson's run (lessonoutputs.py): a step that prints
    # matplotlib's rcParams prints them in both runs.
    (guard / "matplotlibrc").write_text(FIGURE_DEFAULTS, encoding="utf-8")
    env = lesson_environment(folder / f"reader{run}", threads, passed)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(guard), env.get("PYTHONPATH")]))
    env["COURSESITE_HIDDEN"] = json.dumps(hidden)
    # what libraries imported of them (importguard.py), for runtimeimports.py to read
    env["COURSESITE_RUN_TIME_IMPORTS"] = str(guard / RUN_TIME_IMPORTS)
    env["COURSESITE_REFUSED_IMPORTS"] = str(guard / REFUSED_IMPORTS)
    env["COURSESITE_CLOCK_SHIFT"] = str(CLOCK_SHIFT_SECONDS)
    env["MATPLOTLIBRC"] = str(guard / "matplotlibrc")
    return env
