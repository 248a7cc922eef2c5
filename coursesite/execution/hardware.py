"""Whether a lesson's run saw the hardware its front matter declares (`hardware: tpu`):
checked after a run on this machine or on a Dask worker."""

from __future__ import annotations

import re

from coursesite.errors import BuildError
from coursesite.execution.execute import LessonJob
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.execution.probes import probe_names


def unseen_hardware(job: LessonJob, record: ExecutionRecord) -> BuildError | None:
    """The error for a gpu or tpu lesson whose run saw no such device; None when it saw the
    hardware it declares (every run satisfies a cpu lesson)."""
    if job.hardware == "cpu" or record.hardware == job.hardware:
        return None
    kind, names = job.hardware.upper(), probe_names()
    where = (
        f"the Dask worker {record.worker} offers {record.worker_resources or 'nothing'}, "
        f"but {names} found no {kind} there; "
        if record.worker
        else ""
    )
    return BuildError(
        f"lesson declares hardware: {job.hardware} but its run saw no {kind} ({record.devices})",
        job.path,
        _front_matter_line(job.payload["source_text"], "hardware"),
        hint=f"{where}run it on a machine or worker with a {kind} that {names} can use (a "
        f"lesson that does not import {names} uses none), or declare hardware: cpu",
    )


def _front_matter_line(text: str, key: str) -> int | None:
    """The file line of `key:` in the lesson's front matter (which starts on line 2)."""
    for number, line in enumerate(text.splitlines()[1:], start=2):
        if line.rstrip() == "---":
            return None
        if re.match(rf"[\"']?{key}[\"']?\s*:", line):
            return number
    return None
