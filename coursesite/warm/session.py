"""One lesson's warm interpreter, from serve's side: started once the lesson ran, it keeps
the namespace its last block left (warmrunner.py) and runs edited blocks again in it.

It runs under its own guardian, like a build's lesson process (memory limit, every
process it starts killed with it), in a temporary folder of its own. Nothing it answers
is saved: the preview page alone shows it, until the clean full run replaces it.
"""

from __future__ import annotations

import contextlib
import io
import json
import queue
import sys
import threading
from pathlib import Path

from coursesite.execution.environment import lesson_environment
from coursesite.execution.execute import LessonJob
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.execution.lessonprocess import Guardian, LessonProcess, lesson_folder
from coursesite.execution.runresult import record_from_result
from coursesite.execution.writtenimages import with_written_images

WARM_RUNNER = Path(__file__).with_name("warmrunner.py")
MARKER = b"\x1ecoursesite-warm "  # warmrunner.MARKER: its answers on stdout start with it
WORTH_IT = 0.5  # the share of the blocks' time above which a warm run is not worth it


class WarmSession:
    """A lesson's interpreter after a full run of its blocks, holding their namespace.

    `codes` is the code of each block (in run order) that the namespace comes from: the
    job's, then each edit run again successfully.
    """

    def __init__(self, job: LessonJob):
        self.job = job
        self.codes = [block["code"] for block in job.payload["blocks"]]
        self.result: dict = {}  # the first run's result, with each re-run's outputs since
        self.usable = False  # its namespace is what `codes` leave (not after a failed re-run)
        self.stderr_tail = b""
        self._answers: queue.Queue[str] = queue.Queue()
        self._requests = 0
        self._folder = contextlib.ExitStack()
        self._guardian: Guardian | None = None
        self._process: LessonProcess | None = None
        self._work = Path()

    def start(self) -> bool:
        """Run the lesson; True once its namespace is kept, False when the run failed."""
        job = self.job
        folder = self._folder.enter_context(lesson_folder(job.slug))
        self._work = work = folder / "run"
        work.mkdir()
        for name, content in job.inputs.items():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_bytes(content)
        (work / "job.json").write_text(json.dumps(job.payload), encoding="utf-8")
        self._guardian = Guardian(folder, job.memory_mb * 1024 * 1024, spare=False)
        # One thread: the warm run shares the cores with the builds serve runs meanwhile.
        self._process = process = self._guardian.add(
            "warm",
            [sys.executable, "-X", "utf8", str(WARM_RUNNER), "job.json", "result.json"],
            work,
            lesson_environment(work, 1, job.passed_environment),
            stdin=True,
        )
        self._guardian.start()
        threading.Thread(target=self._read_answers, args=(process,), daemon=True).start()
        threading.Thread(target=self._keep_stderr, args=(process,), daemon=True).start()
        if self._answer() != "ready":
            return False
        self.result = json.loads((work / "result.json").read_text(encoding="utf-8"))
        self.usable = not self.result["failure"]
        return self.usable

    def rerun(self, payload: dict, positions: list[int]) -> dict | None:
        """Run the blocks at `positions` of `payload` (a job's, for the edited lesson) again,
        then its live values: the answer (blocks' outputs, values, the failure if one
        failed), or None when the interpreter is gone or took too long."""
        if self._process is None or self._process.stdin is None:
            return None
        request = {
            "source_path": payload["source_path"],
            "source_text": payload["source_text"],
            "blocks": [payload["blocks"][i] for i in positions],
            "values": payload["values"],
            "output_limit": payload["output_limit"],
        }
        self._requests += 1
        try:
            self._process.stdin.write(json.dumps(request).encode() + b"\n")
        except OSError:  # the interpreter is gone
            self.usable = False
            return None
        if self._answer() != f"done {self._requests}":
            self.usable = False
            return None
        answer_path = self._work / f"rerun-{self._requests}.json"
        answer = json.loads(answer_path.read_text(encoding="utf-8"))
        answer_path.unlink()
        self.usable = not answer["failure"]
        if self.usable:
            self.codes = [block["code"] for block in payload["blocks"]]
            outputs = {block["id"]: block for block in self.result["blocks"]}
            outputs.update({block["id"]: block for block in answer["blocks"]})
            self.result = {**self.result, "blocks": list(outputs.values())}
            self.result["values"] = answer["values"]
        return answer

    def costly(self, positions: list[int]) -> str:
        """Why running the blocks at `positions` again is not worth it, or "": a warm run
        that takes most of a full run's time would only slow the full run beside it (they
        share the cores) and show the edit no sooner."""
        seconds = [block["seconds"] for block in self.result["blocks"]]
        again = sum(seconds[i] for i in positions if i < len(seconds))
        if again <= WORTH_IT * sum(seconds):
            return ""
        return f"the blocks to run again took {again:.1f} s of the run's {sum(seconds):.1f} s"

    def record(self) -> ExecutionRecord:
        """What the namespace's blocks printed and drew, the re-run ones as they did last."""
        record = record_from_result(self.job.slug, self.result)
        return with_written_images(record, self.job.writes, self._work, self.job.path)

    def close(self) -> None:
        if self._guardian is not None:
            self._guardian.finish()
        if self._process is not None:
            for stream in (self._process.stdin, self._process.stdout, self._process.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        self._folder.close()
        self.usable = False

    def _answer(self) -> str:
        """The next line warmrunner.py says, or "" when it ended or took too long."""
        try:
            return self._answers.get(timeout=self.job.timeout)
        except queue.Empty:
            return ""

    def _read_answers(self, process: LessonProcess) -> None:
        with contextlib.suppress(OSError, ValueError):  # ValueError: closed meanwhile
            for line in io.BufferedReader(process.stdout):  # type: ignore[type-var]
                if line.startswith(MARKER):
                    self._answers.put(line[len(MARKER) :].decode().strip())
        self._answers.put("")  # it ended

    def _keep_stderr(self, process: LessonProcess) -> None:
        """Read its stderr (a full pipe would stop it) and keep the end, for messages."""
        with contextlib.suppress(OSError, ValueError):
            while chunk := process.stderr.read(65536):
                self.stderr_tail = (self.stderr_tail + chunk)[-4000:]
