"""Whether a lesson's run saw the hardware its front matter declares (`hardware: tpu`):
checked after a run on this machine or on a Dask worker."""

from __future__ import annotations

import re

from coursesite.errors import BuildError
from coursesite.execution.execute import LessonJob
from coursesite.execution.executionrecord import ExecutionRecord


def unseen_hardware(job: LessonJob, record: ExecutionRecord) -> BuildError | None:
    """The error for a gpu or tpu lesson whose run saw no such device; None when it saw the
    hardware it declares (every run satisfies a cpu lesson)."""
    if job.hardware == "cpu" or record.hardware == job.hardware:
        return None
    kind = job.hardware.upper()
    where = (
        f"the Dask worker {record.worker} offers {record.worker_resources or 'nothing'}, "
        f"but JAX found no {kind} there; "
        if record.worker
        else ""
    )
    return BuildError(
        f"lesson declares hardware: {job.hardware} but its run saw no {kind} ({record.devices})",
        job.path,
        _front_matter_line(job.payload["source_text"], "hardware"),
        hint=f"{where}run it on a machine or worker with a {kind} that JAX can use (a lesson "
        "that does not import JAX uses none), or declare hardware: cpu",
    )


def _front_matter_line(text: str, key: str) -> int | None:
    """The file line of `key:` in the lesson's front matter (which starts on line 2)."""
    for number, line in enumerate(text.splitlines()[1:], start=2):
        if line.rstrip() == "---":
            return None
        if re.match(rf"[\"']?{key}[\"']?\s*:", line):
            return number
    return None
