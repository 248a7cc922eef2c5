"""The check that the downloadable main.py, run as a reader runs it, does what the build's
steps did: it ends without error and prints what they printed (volatile parts aside)."""

from __future__ import annotations

import difflib
import itertools
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


# What stands for the output of a step tagged nbval-ignore-output: any lines, any number of
# them (nbval ignores such a cell's output whole). A step's output is matched by whole lines.
_VARYING = "<output of a step tagged nbval-ignore-output>"
_STAND_IN = f"{_VARYING}\n"


def _step_outputs(job: CheckedJob, record: ExecutionRecord) -> dict[str, str]:
    """What each step printed, by block id, a tagged step's output as the stand-in line."""
    return {
        i: _STAND_IN if i in job.output_varies else record.blocks[i].stdout
        for i in job.step_ids
        if i in record.blocks
    }


def _joined(outputs: dict[str, str]) -> str:
    text = ""
    for output in outputs.values():
        # The stand-in is a line of its own, after what an earlier step left on an open line.
        text += ("\n" if output == _STAND_IN and text and not text.endswith("\n") else "") + output
    return text


def _covers(expected: list[str], actual: list[str]) -> list[list[str]]:
    """The lines of `actual` each stand-in of `expected` stands for, as a glob of lines
    takes them: the lines up to where what follows the stand-in is found next (the end of
    the output for the last). Where `actual` matches, these make `expected` into it."""
    covers, at = [], 0
    for k, line in enumerate(expected):
        if line != _VARYING:
            at += 1
            continue
        rest = expected[k + 1 :]
        run = list(itertools.takewhile(lambda after: after != _VARYING, rest))
        if len(run) == len(rest):
            end = max(at, len(actual) - len(run))
        else:
            starts = range(at, len(actual) - len(run) + 1)
            end = next((i for i in starts if actual[i : i + len(run)] == run), at)
        covers.append(actual[at:end])
        at = end
    return covers


def verify_main_py(
    job: CheckedJob,
    record: ExecutionRecord,
    main: subprocess.CompletedProcess,
    capture: OutputCapture,
) -> None:
    """The downloadable main.py must print what the build steps printed."""
    hint = "main.py is the steps alone, run as `python main.py` in an empty folder"
    outputs = _step_outputs(job, record)
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
    expected = mask_volatile(same_locations(_joined(outputs), source), job.volatile)
    actual = mask_volatile(same_locations(main.stdout, source), job.volatile)
    covers = _covers(expected, actual)
    taken = iter(covers)
    expected = [kept for line in expected for kept in (next(taken) if line == _VARYING else [line])]
    if actual != expected:
        difference = "\n".join(
            difflib.unified_diff(expected, actual, "build steps", "python main.py", lineterm="")
        )
        # A tagged step's lines are those it stands for, to tell the steps after it apart.
        taken = iter(covers)
        outputs = {
            i: "".join(f"{line}\n" for line in next(taken, [])) if output == _STAND_IN else output
            for i, output in outputs.items()
        }
        raise main_py_drift_error(job, outputs, (expected, actual), difference)
