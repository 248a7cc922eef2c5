"""Build-speed benchmark, run by hand: `.venv/bin/python bench/bench.py [--reps 5]`.

Everything is measured side by side in one run, on copies of the course in a temporary
folder, as medians of several repetitions, and printed as seconds and as a ratio to the
floor it should be compared with (see docs/benchmarks.md for targets and results).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coursesite.manifest import load_course  # noqa: E402
from coursesite.parse import parse_lesson  # noqa: E402
from generated import write_manifest  # noqa: E402

PYTHON = sys.executable


def run(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak memory (MB) of one command."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{process.stderr.read().decode()}")
    process.stderr.close()
    return seconds, usage.ru_maxrss / 1024


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def copy_course(target: Path) -> Path:
    for name in ("content", "templates", "static"):
        shutil.copytree(ROOT / name, target / name)
    shutil.copy2(ROOT / "lessons.yaml", target / "lessons.yaml")
    return target


def build(course: Path, *extra: str) -> tuple[float, float]:
    return run([PYTHON, str(ROOT / "build.py"), "-q", *extra], course)


def toggle(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    path.write_text(text.replace(old, new) if old in text else text.replace(new, old))


def floors(work: Path, reps: int) -> dict[str, float]:
    """Each lesson's full script run as a plain Python program, and `python -c pass`."""
    course = load_course(ROOT / "lessons.yaml")
    result = {"python -c pass": median([run([PYTHON, "-c", "pass"], work)[0]
                                        for _ in range(reps)])}
    for ref in course.lessons:
        folder = work / f"floor-{ref.slug}"
        folder.mkdir()
        (folder / "script.py").write_text(parse_lesson(ref).full_script())
        result[ref.slug] = median([run([PYTHON, "script.py"], folder)[0] for _ in range(reps)])
    return result


def generated_course(target: Path, count: int) -> Path:
    """A course of `count` copies of the documented example lesson."""
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import authoring_example
    for name in ("templates", "static"):
        if not (target / name).exists():
            shutil.copytree(ROOT / name, target / name)
    (target / "content").mkdir(exist_ok=True)
    slugs = [f"lesson-{index:03d}" for index in range(count)]
    for index, slug in enumerate(slugs):
        path = target / "content" / f"{slug}.md"
        if not path.exists():
            path.write_text(authoring_example().replace("Count what a batch holds",
                                                        f"Lesson {index}"))
    write_manifest(target, slugs)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--sizes", default="50,100,200", help="render-only course sizes")
    arguments = parser.parse_args()
    reps = arguments.reps
    work = Path(tempfile.mkdtemp(prefix="coursesite-bench-"))
    rows: list[tuple[str, float, float, str]] = []
    try:
        floor = floors(work, reps)
        script_sum = sum(v for k, v in floor.items() if k != "python -c pass")
        lesson_2 = floor["load-batch-and-checkpoint-order-with-grain"]
        rows.append(("floor: python -c pass", floor["python -c pass"], 1.0, ""))
        for name, seconds in floor.items():
            if name != "python -c pass":
                rows.append((f"floor: {name} script", seconds, 1.0, ""))
        imports = median([run([PYTHON, "-c", "import grain.python, jax, numpy, matplotlib"],
                              work)[0] for _ in range(reps)])
        rows.append(("heavy imports (a warm worker's saving)", imports, imports / lesson_2,
                     "vs lesson 2 floor"))

        course = copy_course(work / "course")
        cold = []
        for rep in range(reps):
            shutil.rmtree(course / ".cache", ignore_errors=True)
            shutil.rmtree(course / "site", ignore_errors=True)
            cold.append(build(course)[0])
        rows.append(("cold build (empty cache)", median(cold), median(cold) / script_sum,
                     "vs sum of script floors; target ≤ 1.5"))

        noop = [build(course)[0] for _ in range(reps)]
        rows.append(("no-op rebuild", median(noop), median(noop) / floor["python -c pass"],
                     "vs python -c pass; target ≤ 0.25 s"))

        lesson_1 = course / "content" / "06-recovery" / "01-design-an-input-pipeline.md"
        prose = []
        for _ in range(reps):
            toggle(lesson_1, "You have eleven training", "You hold eleven training")
            prose.append(build(course)[0])
        rows.append(("prose-edit rebuild (0 executions)", median(prose),
                     median(prose) / floor["python -c pass"], "target ≤ 0.5 s"))

        lesson_2_path = course / "content" / "06-recovery" / \
            "02-load-batch-and-checkpoint-order-with-grain.md"
        code = []
        for _ in range(reps):
            toggle(lesson_2_path, 'print("PASS: recovery-02")',
                   'print("PASS: recovery-02", flush=True)')
            code.append(build(course)[0])
        rows.append(("code-edit rebuild (lesson 2)", median(code), median(code) / lesson_2,
                     f"vs lesson 2 floor; target ≤ floor + 0.4 s = {lesson_2 + 0.4:.2f} s"))

        scale = work / "scale"
        scale.mkdir()
        for count in sorted(int(size) for size in arguments.sizes.split(",")):
            generated_course(scale, count)
            build(scale, "--cache", str(scale / ".cache"), "--out", str(scale / f"site-{count}"))
            samples, memory = [], 0.0
            for _ in range(reps):
                toggle(scale / "templates" / "base.html", "Built from executable lessons",
                       "Built from executable lessons.")
                seconds, peak = build(scale, "--cache", str(scale / ".cache"),
                                      "--out", str(scale / f"site-{count}"))
                samples.append(seconds)
                memory = max(memory, peak)
            per_page = median(samples) / (count + 2)
            rows.append((f"render-only, {count} lessons (cached records)", median(samples),
                         per_page * 1000, f"ms per page; target ≤ 15; peak {memory:.0f} MB "
                                          "(target ≤ 300)"))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"\n{'measurement':<46} {'median s':>9} {'ratio':>8}  note")
    for name, seconds, ratio, note in rows:
        print(f"{name:<46} {seconds:9.3f} {ratio:8.2f}  {note}")


if __name__ == "__main__":
    main()
