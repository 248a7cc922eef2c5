"""Stage 3: run a lesson's code in its own Python process and record what it did.

The runnable blocks go to `runner.py` in a fresh interpreter whose working directory and
HOME are a temporary folder; the result comes back as JSON and becomes an ExecutionRecord.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

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

    def output_of(self, block_ids: list[str]) -> str:
        return "".join(self.blocks[i].stdout for i in block_ids if i in self.blocks)


def execute_lesson(lesson: Lesson, settings: Settings) -> ExecutionRecord:
    """Run every runnable block of `lesson` in order; raise BuildError on the first failure."""
    blocks = lesson.runnable_blocks()
    job = {
        "source_path": str(lesson.path),
        "source_text": lesson.text,
        "packages": settings.record_packages,
        "blocks": [{"id": b.id, "code": b.code.source, "line": b.code.line,
                    "raises": b.code.raises, "is_figure": b.is_figure} for b in blocks],
    }
    with tempfile.TemporaryDirectory(prefix=f"lesson-{lesson.ref.slug}-") as folder:
        work = Path(folder)
        (work / "job.json").write_text(json.dumps(job), encoding="utf-8")
        completed = _run_isolated(work, settings.timeout_seconds, lesson)
        result_path = work / "result.json"
        if not result_path.is_file():
            raise BuildError(
                f"lesson process ended without a result (exit status {completed.returncode})",
                lesson.path, hint="the code may have crashed the interpreter or killed itself",
                detail=completed.stderr[-4000:] or None)
        result = json.loads(result_path.read_text(encoding="utf-8"))
    failure = result["failure"]
    if failure:
        label = next(b.label for b in blocks if b.id == failure["block"])
        raise BuildError(f"{label} failed: {failure['message']}", lesson.path, failure["line"],
                         hint="fix the code or declare the exception with ':raises: Name'",
                         detail=failure["traceback"] or None)
    return _record(lesson.ref.slug, result)


def _run_isolated(work: Path, timeout: int, lesson: Lesson) -> subprocess.CompletedProcess:
    env = dict(os.environ, HOME=str(work), MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1",
               PYTHONHASHSEED="0")
    command = [sys.executable, "-X", "utf8", str(RUNNER), "job.json", "result.json"]
    # A session of its own, so that a timeout kills the lesson and every child it started.
    process = subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               errors="replace", start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise BuildError(f"lesson code ran longer than {timeout} s and was stopped",
                         lesson.path, hint="raise settings.timeout_seconds in lessons.yaml "
                         "or make the code faster") from None
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _record(slug: str, result: dict) -> ExecutionRecord:
    blocks = {}
    for block in result["blocks"]:
        raised = RaisedException(**block["raised"]) if block["raised"] else None
        blocks[block["id"]] = BlockOutput(block["id"], block["stdout"], block["stderr"],
                                          block["seconds"], raised, block["figure"])
    return ExecutionRecord(slug, result["timestamp"], result["python"], result["packages"],
                           result["devices"], result["wall_seconds"], blocks)
