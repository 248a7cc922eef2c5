"""Why the build stopped a lesson that was still running: its time, its memory, or what it
did to its guardian (the process that starts and watches it, lessonprocess.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from coursesite.errors import BuildError
from coursesite.execution.lessonprocess import Guardian


class StoppedJob(Protocol):
    """What of a lesson's job (execute.LessonJob) these messages need."""

    @property
    def path(self) -> Path: ...
    @property
    def timeout(self) -> int: ...
    @property
    def memory_mb(self) -> int: ...


def timed_out_error(guardian: Guardian, job: StoppedJob) -> BuildError:
    """The error for a lesson still running at its timeout, and stopped."""
    if error := over_memory_error(guardian, job):
        return error
    hint = (
        "make the code faster, or give this lesson more time: timeout_seconds: in its front "
        "matter (settings.timeout_seconds in lessons.yaml for every lesson)"
    )
    if guardian.lost == "stopped":  # so it never reported the lesson's end
        hint = (
            "the code stopped (SIGSTOP) its guardian, its parent process, which could then "
            "neither see it end nor stop it: lesson code must not signal its parent process "
            "(os.getppid())"
        )
    return BuildError(
        f"lesson code ran longer than {job.timeout} s and was stopped", job.path, hint=hint
    )


def stopped_error(guardian: Guardian, job: StoppedJob) -> BuildError | None:
    """The error for a lesson that ended because it was stopped before its timeout: over
    its memory limit, or its guardian killed; None when it ended on its own."""
    if error := over_memory_error(guardian, job):
        return error
    if not guardian.lost:
        return None
    return BuildError(
        "the lesson was stopped: its guardian, the parent process of lesson code, was killed",
        job.path,
        hint="lesson code must not signal its parent process (os.getppid()); if it does "
        "not, something else killed the guardian (the out-of-memory killer?): build again",
    )


def over_memory_error(guardian: Guardian, job: StoppedJob) -> BuildError | None:
    """The error for a lesson its guardian stopped for using too much memory, if it did."""
    if not guardian.memory_used:
        return None
    run = "python main.py" if guardian.memory_user == "main" else "the build's run"
    return BuildError(
        f"the lesson used more than {job.memory_mb} MB (all its processes together: "
        f"{guardian.memory_used // (1024 * 1024)} MB in {run}) and was stopped",
        job.path,
        hint=f"a run of the lesson may use at most {job.memory_mb} MB in "
        "all its processes together, the processes it starts included "
        "(settings.memory_limit_mb in lessons.yaml)",
    )
