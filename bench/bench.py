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
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coursesite.config.manifest import load_course  # noqa: E402
from coursesite.lesson.parse import parse_lesson  # noqa: E402
from generated import share_cache_entry, write_manifest  # noqa: E402

PYTHON = sys.executable


def run(command: list[str], cwd: Path, output: list[str] | None = None) -> tuple[float, float]:
    """Wall seconds and peak memory (MB) of one command: the largest resident size of the
    command and of every process it waited for (Pagefind, lesson runners); `output`, if
    given, receives what it printed."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as printed:
        process = subprocess.Popen(command, cwd=cwd, stdout=printed, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"failed: {' '.join(command)}\n{process.stderr.read().decode()}")
        process.stderr.close()
        if output is not None:
            printed.seek(0)
            output.append(printed.read().decode())
    return seconds, usage.ru_maxrss / 1024


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def copy_course(target: Path, generator: Path = ROOT) -> Path:
    """The real course, with `generator`'s templates and static files."""
    for name in ("content", "templates", "static"):
        shutil.copytree((ROOT if name == "content" else generator) / name, target / name)
    shutil.copy2(ROOT / "lessons.yaml", target / "lessons.yaml")
    return target


def build_command(course: Path, generator: Path) -> list[str]:
    """`python build.py` in the course folder, as an author runs it: the folder holds
    build.py and (linked) `generator`'s package, and is first on the build's sys.path."""
    script, package = course / "build.py", course / "coursesite"
    if not script.exists():
        shutil.copy2(generator / "build.py", script)
    if not package.exists():
        package.symlink_to(generator / "coursesite", target_is_directory=True)
    return [PYTHON, "build.py"]


def build(course: Path, *extra: str, generator: Path = ROOT) -> tuple[float, float]:
    return run([*build_command(course, generator), "-q", *extra], course)


def timed_build(
    course: Path, *extra: str, generator: Path = ROOT, stages: list[dict[str, float]] | None = None
) -> tuple[float, float]:
    """A build that also reports its stages, from the build's own timers (--timings)."""
    printed: list[str] = []
    result = run([*build_command(course, generator), "-q", "--timings", *extra], course, printed)
    if stages is not None:
        stages.append(
            {
                name: float(seconds)
                for name, seconds, unit in (
                    line.split()
                    for line in printed[0].splitlines()
                    if line.endswith(" s") and len(line.split()) == 3
                )
                if name != "total"
            }
        )
    return result


def stage_medians(samples: list[dict[str, float]]) -> str:
    """Each stage's median over the repetitions, in milliseconds."""
    names = [name for name in samples[0] if name != "total"] if samples else []
    return (
        " ".join(
            f"{name} {1000 * median([s.get(name, 0.0) for s in samples]):.0f}" for name in names
        )
        + " (ms)"
    )


def toggle(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    path.write_text(text.replace(old, new) if old in text else text.replace(new, old))


def floor_scripts(work: Path) -> dict[str, Path]:
    """Each lesson's full script, written where `python script.py` can run it."""
    course = load_course(ROOT / "lessons.yaml")
    scripts = {}
    for ref in course.lessons:
        folder = work / f"floor-{ref.slug}"
        folder.mkdir()
        scripts[ref.slug] = folder / "script.py"
        scripts[ref.slug].write_text(parse_lesson(ref).full_script())
    return scripts


def floor(script: Path) -> float:
    return run([PYTHON, script.name], script.parent)[0]


def theme_of(generator: Path) -> Path:
    """Where `generator` keeps its templates and static files: its package's default theme,
    or (before the package layout) its own top level. Generated courses copy them whole, so
    that a template edit (the render-only rows) has a file to change in both versions."""
    theme = generator / "coursesite" / "themes" / "default"
    return theme if theme.is_dir() else generator


def generated_course(
    target: Path, count: int, per_phase: int | None = None, generator: Path = ROOT
) -> Path:
    """A course of `count` copies of the documented example lesson, in phases of
    `per_phase` lessons (None: one phase), with `generator`'s templates."""
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import authoring_example

    for name in ("templates", "static"):
        if not (target / name).exists():
            shutil.copytree(theme_of(generator) / name, target / name)
    (target / "content").mkdir(exist_ok=True)
    slugs = [f"lesson-{index:03d}" for index in range(count)]
    for index, slug in enumerate(slugs):
        path = target / "content" / f"{slug}.md"
        if not path.exists():
            path.write_text(
                authoring_example().replace("Count what a batch holds", f"Lesson {index}")
            )
    write_manifest(target, slugs, per_phase)
    return target


def seeded_course(target: Path, count: int, per_phase: int | None, generator: Path = ROOT) -> Path:
    """A generated course whose lessons are all in the execution cache and whose site is
    built: the first lesson is run, and its cache entry shared by every copy."""
    target.mkdir(parents=True)
    generated_course(target, 1, per_phase, generator)
    build(target, generator=generator)
    generated_course(target, count, per_phase, generator)
    share_cache_entry(
        target / ".cache", "lesson-000", [f"lesson-{index:03d}" for index in range(count)]
    )
    build(target, generator=generator)
    return target


class WarmServe:
    """Rebuilds the way `build.py serve` does: in one process that stays up, so imports and
    the parser are warm, with the search index refreshed after the pages reload."""

    def __init__(self, manifest: Path, out: Path | None = None):
        from coursesite.cli import build_options, parse_arguments
        from coursesite.serve import ServeState

        arguments = ["--manifest", str(manifest)] + (["--out", str(out)] if out else [])
        self.options = replace(build_options(parse_arguments(arguments)), defer_search_index=True)
        self.state = ServeState()
        self.rebuild()

    def rebuild(self) -> tuple[float, float]:
        """Seconds until open pages would reload, and until the search index is fresh."""
        from coursesite import serve
        from coursesite.progress import QuietProgress

        refresh, reloaded = serve.refresh_search, []

        # serve tells open pages to reload right before it re-indexes: time that moment.
        def note_reload(options):
            reloaded.append(time.perf_counter())
            return refresh(options)

        serve.refresh_search = note_reload
        try:
            started = time.perf_counter()
            assert serve.rebuild(self.options, self.state, QuietProgress())
            return reloaded[0] - started, time.perf_counter() - started
        finally:
            serve.refresh_search = refresh


def serve_rows(
    course: Path, prose_path: Path, code_path: Path, floor_script: Path, reps: int
) -> list[tuple[str, float, float, str]]:
    warm = WarmServe(course / "lessons.yaml")
    prose, code, floors = [], [], []
    for _ in range(reps):
        toggle(prose_path, "You have eleven training", "You hold eleven training")
        prose.append(warm.rebuild())
        floors.append(floor(floor_script))
        toggle(code_path, 'print("PASS: recovery-02")', 'print("PASS: recovery-02", flush=True)')
        code.append(warm.rebuild())
    over = median([c - f for (c, _), f in zip(code, floors, strict=True)])
    return [
        (
            "serve: prose edit, until pages reload",
            median([r for r, _ in prose]),
            1.0,
            f"search index fresh after {median([i for _, i in prose]):.3f} s",
        ),
        (
            "serve: code edit (lesson 2), until reload",
            median([r for r, _ in code]),
            median([r / f for (r, _), f in zip(code, floors, strict=True)]),
            f"= paired lesson 2 floor (median {median(floors):.2f} s) + {over:.2f} s",
        ),
    ]


def scale_rows(
    work: Path, arguments: argparse.Namespace, reps: int
) -> list[tuple[str, float, float, str]]:
    """Generated courses of copies of the documented example lesson, all cached: render-only
    rebuilds, and a prose edit in the largest. With --baseline, the same builds by another
    version of the generator run alternately with this one's, each on its own copy."""
    versions = generators(arguments)
    sizes = sorted(int(size) for size in arguments.sizes.split(",") if size)
    layouts = [(size, arguments.per_phase) for size in sizes]
    if arguments.one_phase:
        layouts.append((arguments.one_phase, None))
    rows = []
    for count, per_phase in layouts:
        large = count >= 500
        repeat = arguments.large_reps if large else reps
        layout = f"phases of {per_phase}" if per_phase else "one phase"
        courses = {
            label: seeded_course(
                work / f"scale-{count}-{per_phase}-{number}", count, per_phase, generator
            )
            for number, (label, generator) in enumerate(versions.items())
        }
        render = {label: ([], [], []) for label in versions}
        for _ in range(repeat):
            for label, generator in versions.items():
                seconds, memory, stages = render[label]
                toggle(
                    courses[label] / "templates" / "base.html",
                    "Built from executable lessons",
                    "Built from executable lessons.",
                )
                took, peak = timed_build(courses[label], generator=generator, stages=stages)
                seconds.append(took)
                memory.append(peak)
        for label in versions:
            seconds, memory, stages = render[label]
            per_page = median(seconds) / (count + count // (per_phase or count) + 4)
            rows.append(
                (
                    f"{label}render-only, {count} lessons, {layout}",
                    median(seconds),
                    per_page * 1000,
                    f"ms per page; target ≤ 15 (≤ 5 at 1,000); "
                    f"peak {max(memory):.0f} MB (target ≤ 300); "
                    f"stages {stage_medians(stages)}",
                )
            )
        if count != max(sizes) or not per_phase:
            continue
        # A one-word prose edit, the way an author makes it: what growing costs them.
        prose = {label: ([], []) for label in versions}
        for _ in range(repeat):
            for label, generator in versions.items():
                toggle(
                    courses[label] / "content" / "lesson-007.md",
                    "the remainder of",
                    "what is left of",
                )
                prose[label][0].append(
                    timed_build(courses[label], generator=generator, stages=prose[label][1])[0]
                )
        for label in versions:
            seconds, stages = prose[label]
            rows.append(
                (
                    f"{label}prose-edit rebuild, {count} lessons",
                    median(seconds),
                    1.0,
                    f"target ≤ 1 s at 1,000, search included; stages {stage_medians(stages)}",
                )
            )
        warm = WarmServe(courses[""] / "lessons.yaml", courses[""] / "site")
        serve_at_scale = []
        for _ in range(repeat):
            toggle(courses[""] / "content" / "lesson-007.md", "the remainder of", "what is left of")
            serve_at_scale.append(warm.rebuild())
        rows.append(
            (
                f"serve: prose edit, {count} lessons, until reload",
                median([r for r, _ in serve_at_scale]),
                1.0,
                f"search index fresh after {median([i for _, i in serve_at_scale]):.3f} s",
            )
        )
    return rows


LESSON_1 = Path("content/06-recovery/01-design-an-input-pipeline.md")
LESSON_2 = Path("content/06-recovery/02-load-batch-and-checkpoint-order-with-grain.md")


def generators(arguments: argparse.Namespace) -> dict[str, Path]:
    """Row label prefix -> the generator's checkout: this one, and --baseline if given."""
    found = {"": ROOT}
    if arguments.baseline:
        found["baseline: "] = Path(arguments.baseline).resolve()
    return found


def course_rows(
    work: Path,
    scripts: dict[str, Path],
    bare: float,
    versions: dict[str, Path],
    reps: int,
    cold_reps: int,
) -> tuple[list[tuple[str, float, float, str]], Path]:
    """The real course: cold, no-op, prose-edit and code-edit builds, each generator on its
    own copy, alternately. Each build is paired with its floor, measured right before it:
    the machine is shared, and a floor taken minutes earlier drifts by more than the
    margins. Returns the rows and this generator's copy of the course."""
    lesson_1, lesson_2 = "design-an-input-pipeline", "load-batch-and-checkpoint-order-with-grain"
    courses = {
        label: copy_course(work / f"course-{number}", generator)
        for number, (label, generator) in enumerate(versions.items())
    }
    samples = {
        label: {
            "cold": [],
            "cold floor": [],
            "no-op": [],
            "prose": [],
            "code": [],
            "code floor": [],
            "code 1": [],
            "code 1 floor": [],
        }
        for label in versions
    }
    for _ in range(cold_reps):
        for label, generator in versions.items():
            course, taken = courses[label], samples[label]
            taken["cold floor"].append(sum(floor(script) for script in scripts.values()))
            shutil.rmtree(course / ".cache", ignore_errors=True)
            shutil.rmtree(course / "site", ignore_errors=True)
            taken["cold"].append(build(course, generator=generator)[0])
    for _ in range(reps):
        for label, generator in versions.items():
            samples[label]["no-op"].append(build(courses[label], generator=generator)[0])
    for _ in range(reps):
        for label, generator in versions.items():
            toggle(
                courses[label] / LESSON_1, "You have eleven training", "You hold eleven training"
            )
            samples[label]["prose"].append(build(courses[label], generator=generator)[0])
    # A one-line code edit of lesson 2, then of lesson 1 (#22's row: a short lesson), each
    # paired with its script's floor; toggling re-runs, as the cache keeps one run a lesson.
    edits = [
        ("code", lesson_2, LESSON_2, 'print("PASS: recovery-02")'),
        ("code 1", lesson_1, LESSON_1, 'print("PASS: recovery-01")'),
    ]
    for name, slug, lesson, line in edits:
        for _ in range(reps):
            for label, generator in versions.items():
                samples[label][f"{name} floor"].append(floor(scripts[slug]))
                toggle(courses[label] / lesson, line, line.replace(")", ", flush=True)"))
                samples[label][name].append(build(courses[label], generator=generator)[0])
    rows = []
    for label in versions:
        taken = samples[label]
        cold, cold_floors = taken["cold"], taken["cold floor"]
        code, code_floors = taken["code"], taken["code floor"]
        over = median([c - f for c, f in zip(code, code_floors, strict=False)])
        rows += [
            (
                f"{label}cold build (empty cache)",
                median(cold),
                median([c / f for c, f in zip(cold, cold_floors, strict=False)]),
                f"vs paired sum of script floors (median {median(cold_floors):.2f} s); "
                "target ≤ 1.5",
            ),
            (
                f"{label}no-op rebuild",
                median(taken["no-op"]),
                median(taken["no-op"]) / bare,
                "vs python -c pass; target ≤ 0.25 s",
            ),
            (
                f"{label}prose-edit rebuild (0 executions)",
                median(taken["prose"]),
                median(taken["prose"]) / bare,
                "target ≤ 0.5 s",
            ),
            (
                f"{label}code-edit rebuild (lesson 2)",
                median(code),
                median([c / f for c, f in zip(code, code_floors, strict=False)]),
                f"= paired lesson 2 floor (median {median(code_floors):.2f} s) + "
                f"{over:.2f} s; target ≤ floor + 0.4 s",
            ),
            (
                f"{label}code-edit rebuild (lesson 1)",
                median(taken["code 1"]),
                median(taken["code 1"]) / bare,
                f"paired lesson 1 floor (median {median(taken['code 1 floor']):.2f} s); "
                "target ≤ 0.5 s",
            ),
        ]
    return rows, courses[""]


def commit() -> str:
    """The commit measured, marked when the working tree differs from it."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()

    return git("rev-parse", "--short", "HEAD") + (
        " (modified)" if git("status", "--porcelain", "--", ".") else ""
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument(
        "--cold-reps",
        type=int,
        default=None,
        help="cold builds of the real course per generator (default: --reps; at least 1, "
        "which the other rows build on)",
    )
    parser.add_argument(
        "--sizes",
        default="100,200,1000",
        help="generated course sizes (render-only; prose edit in the largest)",
    )
    parser.add_argument(
        "--per-phase", type=int, default=10, help="lessons per phase of the generated courses"
    )
    parser.add_argument(
        "--one-phase",
        type=int,
        default=1000,
        help="also a course of this many lessons in one phase (0: none)",
    )
    parser.add_argument(
        "--large-reps", type=int, default=3, help="repetitions for courses of 500 lessons or more"
    )
    parser.add_argument(
        "--baseline",
        help="another checkout of the generator (e.g. "
        "`git archive <rev> | tar -x -C DIR`), measured alternately with this "
        "one on the generated courses",
    )
    parser.add_argument(
        "--skip-course", action="store_true", help="only the generated courses, not the real one"
    )
    arguments = parser.parse_args()
    reps = arguments.reps
    work = Path(tempfile.mkdtemp(prefix="coursesite-bench-"))
    rows: list[tuple[str, float, float, str]] = []
    try:
        if not arguments.skip_course:
            scripts = floor_scripts(work)
            lesson_2 = "load-batch-and-checkpoint-order-with-grain"
            bare = median([run([PYTHON, "-c", "pass"], work)[0] for _ in range(reps)])
            rows.append(("floor: python -c pass", bare, 1.0, ""))
            floors = {
                slug: median([floor(script) for _ in range(reps)])
                for slug, script in scripts.items()
            }
            for slug, seconds in floors.items():
                rows.append((f"floor: {slug} script", seconds, 1.0, ""))
            imports = median(
                [
                    run([PYTHON, "-c", "import grain.python, jax, numpy, matplotlib"], work)[0]
                    for _ in range(reps)
                ]
            )
            rows.append(
                (
                    "heavy imports (a warm worker's saving)",
                    imports,
                    imports / floors[lesson_2],
                    "vs lesson 2 floor",
                )
            )

            course_rows_, course = course_rows(
                work,
                scripts,
                bare,
                generators(arguments),
                reps,
                max(1, arguments.cold_reps or reps),
            )
            rows.extend(course_rows_)
            lesson_1 = course / LESSON_1
            lesson_2_path = course / LESSON_2
            rows.extend(serve_rows(course, lesson_1, lesson_2_path, scripts[lesson_2], reps))

        rows.extend(scale_rows(work, arguments, reps))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(
        f"\ncommit {commit()}, Python {sys.version.split()[0]}, {os.cpu_count()} cores, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"reps {reps} (large courses {arguments.large_reps})"
    )
    print(f"\n{'measurement':<56} {'median s':>9} {'ratio':>8}  note")
    for name, seconds, ratio, note in rows:
        print(f"{name:<56} {seconds:9.3f} {ratio:8.2f}  {note}", flush=True)


if __name__ == "__main__":
    main()
