"""Stage 3: run a lesson's code in its own Python process and record what it did.

The runnable blocks go to `runner.py` in a fresh interpreter whose working directory and
HOME are a temporary folder; the result comes back as JSON and becomes an ExecutionRecord.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from .dependencies import lesson_inputs
from .errors import BuildError
from .manifest import Settings
from .model import Lesson

RUNNER = Path(__file__).with_name("runner.py")


@dataclass(frozen=True)
class RaisedException:
    type: str
    message: str


@dataclass(frozen=True)
class BlockOutput:
    id: str
    stdout: str
    stderr: str
    seconds: float
    raised: RaisedException | None = None
    figure: dict | None = None


@dataclass(frozen=True)
class ExecutionRecord:
    """What one run of a lesson printed and drew, and the environment it ran in."""

    lesson: str
    timestamp: str
    python: str
    packages: dict[str, str | None]
    devices: str
    wall_seconds: float
    blocks: dict[str, BlockOutput]
    values: dict[str, str] = field(default_factory=dict)  # live value expression -> text

    def output_of(self, block_ids: list[str]) -> str:
        return "".join(self.blocks[i].stdout for i in block_ids if i in self.blocks)


def record_to_json(record: ExecutionRecord) -> dict:
    return asdict(record)


def record_from_json(data: dict) -> ExecutionRecord:
    blocks = {}
    for block_id, block in data["blocks"].items():
        raised = RaisedException(**block["raised"]) if block["raised"] else None
        blocks[block_id] = BlockOutput(**dict(block, raised=raised))
    return ExecutionRecord(**dict(data, blocks=blocks))


@dataclass(frozen=True)
class LessonJob:
    """Everything needed to run a lesson on any machine: code and data travel with it,
    the author's folder does not."""

    slug: str
    source: str  # the lesson file, for messages and tracebacks
    hardware: str
    payload: dict  # the runner's job.json
    main_py: str
    inputs: dict[str, bytes]  # data files and local modules, by file name
    step_ids: list[str]
    labels: dict[str, str]  # block id -> how messages name it
    volatile: list[str]
    timeout: int


def prepare_job(lesson: Lesson, settings: Settings) -> LessonJob:
    blocks = lesson.runnable_blocks()
    payload = {
        "source_path": str(lesson.path),
        "source_text": lesson.text,
        "packages": settings.record_packages,
        "blocks": [{"id": b.id, "code": b.code.source, "line": b.code.line,
                    "raises": b.code.raises, "is_figure": b.is_figure} for b in blocks],
        "values": [{"expression": v.expression, "line": v.line} for v in lesson.values],
    }
    return LessonJob(
        slug=lesson.ref.slug, source=str(lesson.path), hardware=lesson.front.hardware,
        payload=payload, main_py=lesson.main_py(),
        inputs={path.name: path.read_bytes() for path in lesson_inputs(lesson)},
        step_ids=[f"step-{step.number}" for step in lesson.steps],
        labels={b.id: b.label for b in blocks}, volatile=list(lesson.front.volatile),
        timeout=settings.timeout_seconds)


class LocalExecutor:
    """Runs lessons on this machine, each in its own process, `jobs` at a time."""

    def __init__(self, jobs: int):
        self.jobs = max(1, jobs)
        # Each lesson gets an equal share of the cores for its BLAS/XLA threads.
        self.threads = max(1, (os.cpu_count() or 1) // self.jobs)

    def run(self, jobs: list[LessonJob],
            on_start: Callable[[LessonJob], None] = lambda job: None,
            on_done: Callable[[LessonJob, ExecutionRecord], None] = lambda job, record: None,
            ) -> list[ExecutionRecord | BuildError]:
        """One result per job, in order: its record, or the error that stopped it."""
        def run_one(job: LessonJob) -> ExecutionRecord | BuildError:
            on_start(job)
            try:
                record = run_job(job, self.threads)
            except BuildError as error:
                return error
            on_done(job, record)
            return record

        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            return list(pool.map(run_one, jobs))


def execute_lesson(lesson: Lesson, settings: Settings, threads: int = 1) -> ExecutionRecord:
    """Run every runnable block of `lesson` in order; raise BuildError on the first failure."""
    return run_job(prepare_job(lesson, settings), threads)


def run_job(job: LessonJob, threads: int = 1) -> ExecutionRecord:
    """Run a lesson in a fresh interpreter here; raise BuildError on the first failure."""
    with tempfile.TemporaryDirectory(prefix=f"lesson-{job.slug}-") as folder:
        work, reader = Path(folder) / "run", Path(folder) / "reader"
        for place in (work, reader):
            place.mkdir()
            for name, content in job.inputs.items():
                (place / name).write_bytes(content)
        (work / "job.json").write_text(json.dumps(job.payload), encoding="utf-8")
        (reader / "main.py").write_text(job.main_py, encoding="utf-8")
        # main.py runs as a reader would run it, at the same time as the lesson itself.
        runner = _start([sys.executable, "-X", "utf8", str(RUNNER), "job.json", "result.json"],
                        work, threads)
        main = _start([sys.executable, "main.py"], reader, threads)
        try:
            completed = _finish(runner, job)
            result = _read_result(work / "result.json", completed, job)
            record = _record(job.slug, result)
            _verify_main_py(job, record, _finish(main, job))
        finally:
            _stop(main)
    return record


def _read_result(path: Path, completed: subprocess.CompletedProcess, job: LessonJob) -> dict:
    if not path.is_file():
        raise BuildError(
            f"lesson process ended without a result (exit status {completed.returncode})",
            Path(job.source), hint="the code may have crashed the interpreter or killed itself",
            detail=completed.stderr[-4000:] or None)
    result = json.loads(path.read_text(encoding="utf-8"))
    failure = result["failure"]
    if failure:
        raise BuildError(f"{job.labels.get(failure['block'], 'prose')} failed: "
                         f"{failure['message']}", Path(job.source), failure["line"],
                         hint="fix the code or declare the exception with ':raises: Name'",
                         detail=failure["traceback"] or None)
    return result


def mask_volatile(text: str, volatile: list[str]) -> list[str]:
    """Output lines, with lines matching any `volatile` pattern replaced by a marker."""
    patterns = [re.compile(pattern) for pattern in volatile]
    return ["<volatile>" if any(p.search(line) for p in patterns) else line
            for line in text.splitlines()]


def _verify_main_py(job: LessonJob, record: ExecutionRecord,
                    main: subprocess.CompletedProcess) -> None:
    """The downloadable main.py must print what the build steps printed."""
    hint = "main.py is the steps alone, run as `python main.py` in an empty folder"
    if main.returncode != 0:
        raise BuildError(f"the downloadable main.py fails when run on its own "
                         f"(exit status {main.returncode})", Path(job.source), hint=hint,
                         detail=main.stderr[-4000:] or None)
    expected = mask_volatile(record.output_of(job.step_ids), job.volatile)
    actual = mask_volatile(main.stdout, job.volatile)
    if actual != expected:
        difference = "\n".join(difflib.unified_diff(expected, actual, "build steps",
                                                     "python main.py", lineterm=""))
        raise BuildError("the downloadable main.py prints something else than the build "
                         "steps did", Path(job.source), hint=hint + "; mark timing lines "
                         "with `volatile:` in the front matter", detail=difference)


def _start(command: list[str], work: Path, threads: int) -> subprocess.Popen:
    env = dict(os.environ, HOME=str(work), MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1",
               PYTHONHASHSEED="0", OMP_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    if threads == 1:
        flags = env.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false"
        env["XLA_FLAGS"] = flags.strip()
    # A session of its own, so that a timeout kills the lesson and every child it started.
    return subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)


def _finish(process: subprocess.Popen, job: LessonJob) -> subprocess.CompletedProcess:
    try:
        stdout, stderr = process.communicate(timeout=job.timeout)
    except subprocess.TimeoutExpired:
        _stop(process)
        raise BuildError(f"lesson code ran longer than {job.timeout} s and was stopped",
                         Path(job.source), hint="raise settings.timeout_seconds in "
                         "lessons.yaml or make the code faster") from None
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def _stop(process: subprocess.Popen) -> None:
    """Kill a process and every child it started, if it is still running."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.communicate()


def _record(slug: str, result: dict) -> ExecutionRecord:
    blocks = {block["id"]: {key: block[key] for key in
                            ("id", "stdout", "stderr", "seconds", "raised", "figure")}
              for block in result["blocks"]}
    return record_from_json({"lesson": slug, "timestamp": result["timestamp"],
                             "python": result["python"], "packages": result["packages"],
                             "devices": result["devices"], "wall_seconds": result["wall_seconds"],
                             "blocks": blocks, "values": result["values"]})
