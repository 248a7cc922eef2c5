"""Local pool against a Dask cluster, run by hand: `.venv/bin/python bench/cluster_bench.py`.

Generates a course of `--lessons` copies of the documented example lesson whose experiment
burns `--cpu` seconds of CPU, in a temporary folder, then times, side by side:

- the executor alone (the prepared jobs, LocalExecutor(2).run against DaskExecutor.run), and
- the whole cold build (`build.py --force`, which also renders the pages and search index),

with the local pool at `--jobs 2` and with a LocalCluster of 2 single-thread worker
processes on 127.0.0.1. Results and the arithmetic for larger clusters: docs/scaling.md.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from conftest import authoring_example, replace_block  # noqa: E402
from coursesite.config.manifest import load_course  # noqa: E402
from coursesite.execution.cluster import DaskExecutor  # noqa: E402
from coursesite.execution.execute import LocalExecutor, prepare_job  # noqa: E402
from coursesite.lesson.parse import parse_lesson  # noqa: E402
from generated import write_manifest  # noqa: E402

SLOTS = 2  # lessons at once in both set-ups: --jobs 2, or 2 workers of one thread


def busy_lesson(index: int, cpu_seconds: float) -> str:
    """The example lesson; its experiment (not part of main.py) burns `cpu_seconds` of CPU."""
    block = (
        ":::{experiment} Burn CPU\n:predict: p\n:expected: e\n\n```python\n"
        "import time\n"
        f"while time.process_time() < {cpu_seconds}:\n"
        "    pass\n"
        "print('done')\n```\n\nTakeaway.\n:::\n"
    )
    text = replace_block(authoring_example(), ":::{experiment}", block)
    return text.replace("Count what a batch holds", f"Busy lesson {index}")


def generated_course(target: Path, count: int, cpu_seconds: float) -> Path:
    for name in ("templates", "static"):
        shutil.copytree(ROOT / name, target / name)
    (target / "content").mkdir()
    slugs = [f"busy-{index:03d}" for index in range(count)]
    for index, slug in enumerate(slugs):
        (target / "content" / f"{slug}.md").write_text(busy_lesson(index, cpu_seconds))
    write_manifest(target, slugs)
    return target


def time_executor(executor, jobs) -> float:
    started = time.perf_counter()
    outcomes = executor.run(jobs)
    seconds = time.perf_counter() - started
    failed = [outcome for outcome in outcomes if not hasattr(outcome, "blocks")]
    if failed:
        raise SystemExit(f"a lesson failed: {failed[0]}")
    return seconds


def time_build(course: Path, *extra: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "-q", "--force", *extra], cwd=course, check=True
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lessons", type=int, default=40)
    parser.add_argument("--cpu", type=float, default=2.0, help="CPU seconds per lesson")
    parser.add_argument("--reps", type=int, default=1)
    arguments = parser.parse_args()
    from distributed import LocalCluster

    work = Path(tempfile.mkdtemp(prefix="coursesite-cluster-bench-"))
    try:
        course = generated_course(work / "course", arguments.lessons, arguments.cpu)
        loaded = load_course(course / "lessons.yaml")
        jobs = [prepare_job(parse_lesson(ref), loaded.settings) for ref in loaded.lessons]
        started = time.perf_counter()
        cluster = LocalCluster(
            n_workers=SLOTS,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
        )
        startup = time.perf_counter() - started
        address = cluster.scheduler_address
        samples: dict[str, list[float]] = {}
        measurements = {
            "executor: local pool, jobs=2": lambda: time_executor(LocalExecutor(SLOTS), jobs),
            "executor: Dask, 2 workers": lambda: time_executor(DaskExecutor(address), jobs),
            "cold build: local pool, --jobs 2": lambda: time_build(course, "--jobs", "2"),
            "cold build: Dask, 2 workers": lambda: time_build(course, "--cluster", address),
        }
        for _ in range(arguments.reps):  # interleaved, so that a noisy minute hits both
            for name, measure in measurements.items():
                samples.setdefault(name, []).append(measure())
        cluster.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    floor = arguments.lessons * arguments.cpu / SLOTS
    print(
        f"\n{arguments.lessons} lessons × {arguments.cpu} s of CPU, {SLOTS} at a time: "
        f"floor {floor:.1f} s; LocalCluster start-up {startup:.2f} s (not in the times)"
    )
    print(f"{'measurement':<36} {'wall s':>8} {'overhead per lesson s':>22}")
    for name, values in samples.items():
        wall = statistics.median(values)
        # Each slot runs lessons one after another: what a lesson costs beyond its own CPU.
        overhead = wall * SLOTS / arguments.lessons - arguments.cpu
        print(f"{name:<36} {wall:8.2f} {overhead:22.3f}")


if __name__ == "__main__":
    main()
