"""The result a lesson's run leaves (runner.py writes it as result.json), read back: what
each block printed, or every failure, or the word that the run ended without one.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from coursesite.errors import BuildError
from coursesite.execution.blockfailures import (
    LessonJobWithCode,
    after_failed_blocks,
    lesson_failures_error,
    quiet_reads_error,
)
from coursesite.execution.executionrecord import (
    ExecutionRecord,
    hardware_kind,
    record_from_json,
)
from coursesite.execution.runningblock import at_running_block

FAILURE_KEYS = {"block", "line", "message", "traceback"}  # of each failure the runner reports


def read_result(path: Path, completed: subprocess.CompletedProcess, job: LessonJobWithCode) -> dict:
    """What the runner wrote of the run at `path`; BuildError for a run that failed, one that
    left no result, or one whose code damaged it."""
    if not path.is_file():
        ended = exit_description(completed.returncode)
        crashed = BuildError(
            f"lesson process ended without a result ({ended})",
            job.path,
            hint="the code crashed the interpreter or ended it itself "
            "(os._exit, a signal, native code); run main.py by hand to see where",
            detail=completed.stderr[-4000:] or None,
        )
        raise after_failed_blocks(at_running_block(crashed, path.parent, job), path.parent, job)
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
        # every failed block's (the runner goes on after one), then the checks' or values'
        failures = result["failures"] or ([result["failure"]] if result["failure"] else [])
        if not all(failure.keys() >= FAILURE_KEYS for failure in failures):
            raise KeyError("failure")
    except (ValueError, KeyError, TypeError, AttributeError):  # UnicodeDecodeError too
        raise damaged_result(job) from None
    if failures:
        raise lesson_failures_error(failures, result, job)
    if quiet := quiet_reads_error(result, job):
        raise quiet
    return result


def damaged_result(job: LessonJobWithCode) -> BuildError:
    """The runner's result file is not as the runner writes it: the lesson wrote over it."""
    return BuildError(
        "the lesson's run left a damaged result: its code wrote over result.json, the file "
        "the build reads the run from",
        job.path,
        hint="lesson code must not write result.json or job.json in its folder: write to "
        "another file name",
    )


def exit_description(status: int) -> str:
    if status < 0:
        name = signal.Signals(-status).name if -status in signal.valid_signals() else -status
        return f"killed by signal {name}"
    return f"exit status {status}"


def record_from_result(slug: str, result: dict) -> ExecutionRecord:
    """The record of a run from the result runner.py wrote."""
    blocks = {block["id"]: block for block in result["blocks"]}
    return record_from_json(
        {
            "lesson": slug,
            "timestamp": result["timestamp"],
            "python": result["python"],
            "packages": result["packages"],
            "devices": result["devices"],
            "wall_seconds": result["wall_seconds"],
            "blocks": blocks,
            "values": result["values"],
            "host": result["host"],
            "worker_resources": "",
            "hardware": hardware_kind(result["platforms"]),
        }
    )


def ended(status: int) -> str:
    """'exit status 1', or the signal that killed the process: 'killed by SIGSEGV'."""
    if status >= 0:
        return f"exit status {status}"
    try:
        return f"killed by {signal.Signals(-status).name}"
    except ValueError:
        return f"killed by signal {-status}"
