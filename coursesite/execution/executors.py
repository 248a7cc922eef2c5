"""Where lesson records come from: one interface, three executors.

The local process pool (execute.LocalExecutor) and a Dask cluster (cluster.DaskExecutor)
run the code; FrozenExecutor runs nothing and serves the committed records in records/,
which is what `build.py --frozen` publishes from. The build cannot tell them apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from coursesite.config.manifest import Settings
from coursesite.config.options import BuildOptions
from coursesite.errors import BuildError
from coursesite.execution import records
from coursesite.execution.execute import DoneCallback, LessonJob, LocalExecutor, StartCallback
from coursesite.execution.executionkey import CacheKey
from coursesite.execution.executionrecord import ExecutionRecord


class Executor(Protocol):
    where: str  # for the progress line: "up to 2 at a time", "on the Dask cluster at ..."
    runs_code: bool  # False: records are served, so caching and saving them is pointless

    def run(
        self, jobs: list[LessonJob], on_start: StartCallback = ..., on_done: DoneCallback = ...
    ) -> list[ExecutionRecord | BuildError]:
        """One result per job, in order: its record, or the error that stopped it."""
        ...


class FrozenExecutor:
    """The committed record of each lesson, refused when the lesson's code changed since."""

    runs_code = False

    def __init__(self, folder: Path, keys: dict[str, CacheKey]):
        self.folder = folder
        self.keys = keys
        self.where = f"from the committed records in {folder}"

    def run(
        self,
        jobs: list[LessonJob],
        on_start: StartCallback = lambda job: None,
        on_done: DoneCallback = lambda job, record: None,
    ) -> list[ExecutionRecord | BuildError]:
        return [self._record(job) for job in jobs]

    def _record(self, job: LessonJob) -> ExecutionRecord | BuildError:
        try:
            frozen = records.load(self.folder, job.slug)
        except BuildError as problem:
            return problem
        if frozen is None:
            return BuildError(
                f"--frozen: lesson '{job.slug}' has no record in {self.folder}",
                job.path,
                hint="build once without --frozen and commit records/",
            )
        stale = records.staleness(frozen, self.keys[job.slug])
        if stale:
            return BuildError(
                f"--frozen: the code of lesson '{job.slug}' changed since its record ({stale})",
                job.path,
                hint="build without --frozen where the lesson can run, then commit records/",
            )
        return frozen.record


def choose_executor(
    options: BuildOptions, settings: Settings, keys: dict[str, CacheKey]
) -> Executor:
    if options.frozen:
        return FrozenExecutor(options.records, keys)
    if not (options.cluster or settings.cluster):
        # Not through cluster.create_executor, whose module (asyncio, pickle: ~10 ms) would
        # load on the path of a code edit, before its lesson starts.
        return LocalExecutor(options.jobs)
    from coursesite.execution.cluster import create_executor  # Dask's loads only then

    return create_executor(options, settings)
