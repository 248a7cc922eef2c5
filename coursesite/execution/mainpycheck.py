"""The check that the downloadable main.py, run as a reader runs it, does what the build's
steps did: it ends without error and prints what they printed (volatile parts aside)."""

from __future__ import annotations

import difflib
import subprocess
from typing import Protocol

from coursesite.errors import BuildError
from coursesite.execution.capture import OutputCapture
from coursesite.execution.executionrecord import ExecutionRecord, mask_volatile
from coursesite.execution.failures import FailedJob, main_py_drift_error
from coursesite.execution.hiddenimports import ReaderJob, hidden_import_error
from coursesite.execution.runresult import ended
from coursesite.execution.sourcelocations import same_locations


class CheckedJob(FailedJob, ReaderJob, Protocol):
    """What of a lesson's job (execute.LessonJob) the check needs."""

    @property
    def step_ids(self) -> list[str]: ...
    @property
    def volatile(self) -> list[str]: ...
    @property
    def output_varies(self) -> frozenset[str]: ...


# What stands for each line a step tagged nbval-ignore-output printed: any line matches it.
_VARYING = "<output of a step tagged nbval-ignore-output>"


def _varying(text: str) -> str:
    """`text` with each of its lines standing for any line (its line ends kept)."""
    lines = text.split("\n")
    return "\n".join([_VARYING] * (len(lines) - 1) + [_VARYING if lines[-1] else ""])


def verify_main_py(
    job: CheckedJob,
    record: ExecutionRecord,
    main: subprocess.CompletedProcess,
    capture: OutputCapture,
) -> None:
    """The downloadable main.py must print what the build steps printed."""
    hint = "main.py is the steps alone, run as `python main.py` in an empty folder"
    expected_text = "".join(
        _varying(record.blocks[i].stdout) if i in job.output_varies else record.blocks[i].stdout
        for i in job.step_ids
        if i in record.blocks
    )
    stopped = capture.streams["stdout"].overflowed  # and so stopped: see main_py_limit
    if stopped:
        raise BuildError(
            f"the downloadable main.py printed more than "
            f"{capture.streams['stdout'].limit} bytes, more than the build steps "
            "did, and was stopped",
            job.path,
            hint=hint + "; does it print without end where the steps do not?",
        )
    if main.returncode != 0 and (hidden := hidden_import_error(job, main.stderr)):
        raise hidden
    if main.returncode != 0:
        raise BuildError(
            f"the downloadable main.py fails when run on its own ({ended(main.returncode)})",
            job.path,
            hint=hint,
            detail=main.stderr[-4000:] or None,
        )
    source = job.payload["source_path"]  # a location in the lesson is one in main.py
    expected = mask_volatile(same_locations(expected_text, source), job.volatile)
    actual = mask_volatile(same_locations(main.stdout, source), job.volatile)
    if len(actual) == len(expected):  # a tagged step's lines match whatever stands there
        actual = [e if e == _VARYING else a for e, a in zip(expected, actual, strict=True)]
    if actual != expected:
        difference = "\n".join(
            difflib.unified_diff(expected, actual, "build steps", "python main.py", lineterm="")
        )
        steps = {i: record.blocks[i].stdout for i in job.step_ids if i in record.blocks}
        raise main_py_drift_error(job, steps, (expected, actual), difference)
