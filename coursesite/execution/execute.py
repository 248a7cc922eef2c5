"""Stage 3: run a lesson's code in its own Python process and record what it did.

The runnable blocks go to `runner.py` in a fresh interpreter whose working directory and
HOME are a temporary folder; the result comes back as JSON and becomes an ExecutionRecord.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from coursesite.config.manifest import Settings
from coursesite.errors import BuildError
from coursesite.execution.blockfailures import after_failed_blocks
from coursesite.execution.capture import OutputCapture
from coursesite.execution.dependencies import lesson_inputs, run_name
from coursesite.execution.environment import lesson_environment, reader_environment
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.execution.expectedoutputs import stored_runs
from coursesite.execution.hiddenimports import missing_optional
from coursesite.execution.installs import also_installed, hidden_modules, lesson_distributions
from coursesite.execution.lessonprocess import (
    RUN_FOLDER,
    Guardian,
    LessonProcess,
    clean_up_in_background,
    lesson_folder,
    stop_all,
)
from coursesite.execution.machineshares import memory_share, threads_per_lesson
from coursesite.execution.mainpycheck import verify_main_py
from coursesite.execution.probes import probes_payload
from coursesite.execution.runningblock import at_running_block
from coursesite.execution.runresult import damaged_result, read_result, record_from_result
from coursesite.execution.runtimeimports import with_run_time_installs
from coursesite.execution.sharedpaths import (
    ScratchLocks,
    absolute_paths,
    main_py_command,
    remove_scratch,
    scratch_paths,
)
from coursesite.execution.stopped import stopped_error, timed_out_error
from coursesite.execution.writtenimages import shown_writes, with_written_images
from coursesite.files import write_in_place
from coursesite.lesson.model import Lesson

RUNNER = Path(__file__).with_name("runner.py")


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
    memory_mb: int  # 0: the machine's share (memory_share), settled where it runs
    hidden: dict[str, str] = field(default_factory=dict)
    """Modules main.py may not import: only distributions outside its install line have
    them (installs.py)."""
    solution_ids: list[str] = field(default_factory=list)  # reference solutions' blocks
    passed_environment: list[str] = field(default_factory=list)  # settings.pass_environment
    writes: dict[str, int] = field(default_factory=dict)  # images it writes -> line showing one
    shares_paths: bool = False  # its code names absolute paths: main.py runs after it
    scratch: tuple[str, ...] = ()  # places under the temporary folder its runs make
    expected_outputs: str = ""  # the notebook's stored outputs, by their name in `inputs`
    output_varies: frozenset[str] = frozenset()  # blocks tagged nbval-ignore-output

    @functools.cached_property
    def stored_runs(self) -> dict[str, str]:
        """The blocks its notebook ran (expectedoutputs.stored_runs): read only when a
        failure's hint asks, never for a run that passes."""
        data = self.inputs.get(self.expected_outputs) if self.expected_outputs else None
        return stored_runs(data) if data else {}

    @property
    def step_lines(self) -> dict[str, int]:
        """Each block's first line in the lesson file, by id."""
        return {block["id"]: block["line"] for block in self.payload["blocks"]}

    @property
    def path(self) -> Path:
        """The lesson file, for messages."""
        return Path(self.source)


StartCallback = Callable[[LessonJob], None]  # a lesson's processes exist
DoneCallback = Callable[[LessonJob, "ExecutionRecord"], None]  # a lesson ran


def prepare_job(
    lesson: Lesson,
    settings: Settings,
    inputs: dict[str, bytes] | None = None,
    hidden_for: Callable[[list[str]], dict[str, str]] = hidden_modules,
) -> LessonJob:
    """The job for `lesson`; `inputs` are its files by relative path, when already read;
    `hidden_for` gives the modules main.py may not import (installs.hidden_modules, or a
    cached version of it)."""
    if inputs is None:
        folder = lesson.path.parent
        inputs = {
            os.path.relpath(path, folder): path.read_bytes() for path in lesson_inputs(lesson)
        }
    blocks = lesson.runnable_blocks()
    installs = lesson_distributions(lesson, inputs)
    payload = {
        "source_path": str(lesson.path),
        "source_text": lesson.text,
        # The record keeps the versions of what the install line pins, and those the
        # course asks every record to keep.
        "packages": list(dict.fromkeys([*settings.record_packages, *installs])),
        "blocks": [
            {
                "id": b.id,
                "code": b.code.source,
                "line": b.code.line,
                "raises": b.code.raises,
                "is_figure": b.is_figure,
                "program": b.program,
            }
            for b in blocks
        ],
        # Each check is proved after main.py: it must pass after its solution, fail after
        # the starter (runner.py, prove_checks).
        "attempts": [
            {
                "id": a.check_id,
                "solution": a.solution_id,
                "starter": {"code": a.starter.source, "line": a.starter.line},
                "check": {"code": a.check.source, "line": a.check.line},
            }
            for a in lesson.attempts
        ],
        "values": [{"expression": v.expression, "line": v.line} for v in lesson.values],
        "output_limit": settings.output_limit,
        "probes": probes_payload(),
    }
    named = absolute_paths([b.code.source for b in blocks])  # places outside its folder
    expected = lesson.front.expected_outputs
    return LessonJob(
        slug=lesson.ref.slug,
        source=str(lesson.path),
        hardware=lesson.front.hardware,
        payload=payload,
        main_py=lesson.main_py(),
        inputs={run_name(name): content for name, content in inputs.items()},
        step_ids=lesson.program_ids(),
        labels={
            **{b.id: b.label for b in blocks},
            **{a.check_id: a.label for a in lesson.attempts},
        },
        volatile=list(lesson.front.volatile),
        output_varies=lesson.output_varies(),
        timeout=lesson.front.timeout_seconds or settings.timeout_seconds,
        memory_mb=settings.memory_limit_mb or 0,  # 0: memory_share, where it runs
        hidden=hidden_for(installs),
        solution_ids=[b.id for b in blocks if b.solution],
        passed_environment=list(settings.pass_environment),
        writes=shown_writes(lesson),
        shares_paths=bool(named),
        scratch=scratch_paths(named),
        expected_outputs=run_name(os.path.normpath(expected)) if expected else "",
    )


class LocalExecutor:
    """Runs lessons on this machine, each in its own process, `jobs` at a time."""

    runs_code = True

    def __init__(self, jobs: int):
        self.jobs = max(1, jobs)
        self.threads = threads_per_lesson(self.jobs)
        self.where = f"up to {self.jobs} at a time"

    def run(
        self,
        jobs: list[LessonJob],
        on_start: StartCallback = lambda job: None,
        on_done: DoneCallback = lambda job, record: None,
    ) -> list[ExecutionRecord | BuildError]:
        """One result per job, in order: its record, or the error that stopped it."""
        scratch = ScratchLocks()

        def run_one(job: LessonJob) -> ExecutionRecord | BuildError:
            try:
                with scratch.held(job.scratch):
                    record = run_job(
                        job,
                        self.threads,
                        on_started=lambda: on_start(job),
                        clean_up=clean_up_in_background,
                    )
            except BuildError as error:
                return error
            on_done(job, record)
            return record

        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            try:
                return list(pool.map(run_one, jobs))
            except BaseException:  # interrupted: don't wait for lessons to finish
                stop_all()
                raise


def run_job(
    job: LessonJob,
    threads: int = 1,
    on_started: Callable[[], None] = lambda: None,
    clean_up: Callable[[Callable[[], None]], None] = lambda finish: finish(),
) -> ExecutionRecord:
    """Run a lesson in a fresh interpreter here; raise BuildError if it fails (a
    GroupedBuildError when several of its blocks fail).

    `on_started` is called once the lesson's processes exist. `clean_up` is handed the
    clean-up of a lesson that ran (its guardian's end, which kills whatever the lesson
    left running, then its folder's removal): by default it runs at once; LocalExecutor
    runs it while the build goes on (lessonprocess.clean_up_in_background).
    """
    if not job.memory_mb:
        job = replace(job, memory_mb=memory_share(threads))
    with contextlib.ExitStack() as stack:
        folder = stack.enter_context(lesson_folder(job.slug))
        guardian, main, runner = _lesson_processes(job, threads, folder)
        stack.callback(guardian.finish)
        try:
            guardian.start()
            _capture(main, job, stdout_limit=main_py_limit(job), stop_on_overflow=True)
            _capture(runner, job)
            on_started()
            record = _recorded_run(job, runner, folder / RUN_FOLDER / "result.json", main)
            job, ran, capture, optional = _reader_run(job, threads, folder, main, stack)
            verify_main_py(job, record, ran, capture)
            guard = folder / f"guard{_run_name(len(optional))}"
            record = with_run_time_installs(record, guard, optional)
            record = with_written_images(record, job.writes, folder / RUN_FOLDER, job.path)
        finally:
            for process in (runner, main):
                if process.capture:
                    _stop(process)
                    process.capture.close()
                else:  # the guardian did not start
                    process.stdout.close()
                    process.stderr.close()
            remove_scratch(job.scratch)
        clean_up(stack.pop_all().close)
    return record


# How many more times main.py runs, each time with one more distribution that a library
# imported as optional and then failed without (hiddenimports.missing_optional).
OPTIONAL_RERUNS = 3


def _reader_run(
    job: LessonJob, threads: int, folder: Path, main: LessonProcess, stack: contextlib.ExitStack
) -> tuple[LessonJob, subprocess.CompletedProcess, OutputCapture, list[str]]:
    """main.py's run as a reader's, and the distributions it needed that the install line
    left out: Plotly imports pandas as optional, then `px.data.iris()` fails without it.
    The lesson's own run, which had it, shows the lesson needs it: main.py runs again
    with it, and the install line lists it (runtimeimports.py). When the failure names
    none, the last optional import refused is tried, and kept only if main.py then passes."""
    ran, capture, optional = _finish(main, job), main.captured(), list[str]()
    first: tuple[LessonJob, subprocess.CompletedProcess, OutputCapture, list[str]]
    first = (job, ran, capture, [])
    guessed = False
    while ran.returncode and len(optional) < OPTIONAL_RERUNS:
        guard = folder / f"guard{_run_name(len(optional))}"
        wanted, guess = missing_optional(job, ran, guard, optional)
        guessed = guessed or guess
        if not wanted:
            break
        optional.append(wanted)
        job = replace(job, hidden=also_installed(job.hidden, wanted))
        again = _main_py_again(job, threads, folder, _run_name(len(optional)), stack)
        ran, capture = _finish(again, job), again.captured()
    return first if guessed and ran.returncode else (job, ran, capture, optional)


def _run_name(reruns: int) -> str:
    """The suffix of main.py's folders in its run after `reruns` others: "", "-2", ..."""
    return f"-{reruns + 1}" if reruns else ""


def _main_py_again(
    job: LessonJob, threads: int, folder: Path, run: str, stack: contextlib.ExitStack
) -> LessonProcess:
    """main.py, started again in a folder of its own under a guardian of its own."""
    reader = folder / f"reader{run}"
    _place(reader, job)
    write_in_place(reader / "main.py", job.main_py)
    guardian = Guardian(folder, job.memory_mb * 1024 * 1024, spare=False)
    stack.callback(guardian.finish)
    environment = reader_environment(folder, threads, job.passed_environment, job.hidden, run)
    main = guardian.add("main", main_py_command(None, job.scratch), reader, environment)
    guardian.start()
    _capture(main, job, stdout_limit=main_py_limit(job), stop_on_overflow=True)
    stack.callback(_released, main)
    return main


def _released(process: LessonProcess) -> None:
    _stop(process)
    if process.capture:
        process.capture.close()


def _place(place: Path, job: LessonJob) -> None:
    """A folder for one of the lesson's processes, holding the files its code reads."""
    place.mkdir()
    for name, content in job.inputs.items():
        (place / name).parent.mkdir(parents=True, exist_ok=True)
        write_in_place(place / name, content)


def _lesson_processes(
    job: LessonJob, threads: int, folder: Path
) -> tuple[Guardian, LessonProcess, LessonProcess]:
    """The lesson's guardian with its two processes, main.py's and the runner's, to start."""
    work, reader = folder / RUN_FOLDER, folder / "reader"
    _place(work, job)
    _place(reader, job)
    write_in_place(work / "job.json", json.dumps(job.payload))
    write_in_place(reader / "main.py", job.main_py)
    # Both processes are the children of the lesson's guardian (guardian.py), which
    # kills them and all they started when they end, when the build ends, and when the
    # build is killed outright; and which holds the lesson to its memory limit.
    guardian = Guardian(folder, job.memory_mb * 1024 * 1024)
    # main.py runs as a reader would, beside the lesson's run (after it, when the code names
    # absolute paths: sharedpaths.py); its stdout may hold what every step printed, no more.
    main = guardian.add(
        "main",
        main_py_command(work / "result.json" if job.shares_paths else None, job.scratch),
        reader,
        reader_environment(folder, threads, job.passed_environment, job.hidden),
    )
    runner = guardian.add(
        "runner",
        [sys.executable, "-X", "utf8", str(RUNNER), "job.json", "result.json"],
        work,
        lesson_environment(work, threads, job.passed_environment),
    )
    return guardian, main, runner


def _recorded_run(
    job: LessonJob, runner: LessonProcess, result_path: Path, main: LessonProcess
) -> ExecutionRecord:
    """The runner's record, once it ended; BuildError if it failed or printed too much."""
    try:
        completed = _finish(runner, job)
    except BuildError as error:
        stopped = _noting_endless_main_py(at_running_block(error, result_path.parent, job), main)
        raise after_failed_blocks(stopped, result_path.parent, job) from None
    result = read_result(result_path, completed, job)
    try:
        record = record_from_result(job.slug, result)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise damaged_result(job) from None
    if too_much := _over_output_limit(job, record):
        raise too_much
    return record


def stream_limit(job: LessonJob) -> int:
    """Bytes kept of a lesson process's stream: settings.output_limit characters of UTF-8."""
    return 4 * job.payload["output_limit"]


def main_py_limit(job: LessonJob) -> int:
    """Bytes kept of main.py's stdout: as much as all steps' recorded output can hold."""
    return stream_limit(job) * max(1, len(job.step_ids))


def _noting_endless_main_py(error: BuildError, main: LessonProcess) -> BuildError:
    """A timeout says so when main.py, beside it, had already printed past its cap."""
    stdout = main.captured().streams["stdout"]
    if stdout.overflowed:
        error.message += (
            f"; python main.py printed more than {stdout.limit} bytes "
            "meanwhile, so a step probably prints without end"
        )
        error.hint = (
            "look for a loop in the steps that prints and never ends (or raise the lesson's "
            "timeout_seconds: if its output does end)"
        )
    return error


TRUNCATED = "\n[output truncated: "  # what runner.py appends to an output it cut short


def _over_output_limit(job: LessonJob, record: ExecutionRecord) -> BuildError | None:
    """The error for the first block whose output the runner had to cut short: a page that
    silently showed part of it would claim less than the code printed."""
    for block in job.payload["blocks"]:
        output = record.blocks.get(block["id"])
        texts = (output.stdout, output.stderr, output.display) if output else ()
        if any(TRUNCATED in text for text in texts):
            return BuildError(
                f"{job.labels[block['id']]} printed more than "
                f"{job.payload['output_limit']:,} characters, more than its page can show",
                job.path,
                block["line"],
                hint="print a summary (a count, the first lines), "
                "or raise settings.output_limit in lessons.yaml",
            )
    return None


def _capture(
    process: LessonProcess,
    job: LessonJob,
    stdout_limit: int | None = None,
    stop_on_overflow: bool = False,
) -> None:
    """Keep a lesson process's output in `process.capture` (see capture.py).

    With `stop_on_overflow`, the process is stopped once its stdout passes its limit.
    """
    limits = {"stdout": stdout_limit or stream_limit(job), "stderr": stream_limit(job)}
    process.capture = OutputCapture(
        process, limits, functools.partial(_stop_at_overflow, process, stop_on_overflow)
    )


def _finish(process: LessonProcess, job: LessonJob) -> subprocess.CompletedProcess:
    try:
        process.wait(timeout=job.timeout)
    except subprocess.TimeoutExpired:
        _stop(process)
        raise timed_out_error(process.guardian, job) from None
    _stop(process)  # children it left behind
    if error := stopped_error(process.guardian, job):
        raise error
    stdout, stderr = process.captured().finish()
    return subprocess.CompletedProcess(process.args, process.wait(), stdout, stderr)


def _stop(process: LessonProcess) -> None:
    """Kill the process's whole session: the lesson and any child it started there."""
    process.stop()


def _stop_at_overflow(process: LessonProcess, stop: bool, stream: str) -> None:
    if stop and stream == "stdout":
        process.kill()
