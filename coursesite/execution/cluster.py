"""Run lessons on a Dask cluster instead of local processes: `--cluster tcp://host:8786`.

DaskExecutor has LocalExecutor's interface, so the rest of the build does not know which one
ran a lesson. What travels to a worker is the LessonJob (code, main.py and the declared data
files, never the course folder); what comes back is the ExecutionRecord, cached and frozen
like a local one. Workers need the build's environment (requirements.txt, and this package
importable), nothing else.

A lesson's `hardware` becomes a Dask worker resource: a `tpu` lesson runs only on a worker
started with `--resources "tpu=1"`; a `cpu` lesson needs no resource and runs on any worker.
`distributed` is imported inside the functions that use it, so a local build never loads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import pickle
import queue
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from time import monotonic
from typing import TYPE_CHECKING

from coursesite.config.manifest import Settings
from coursesite.config.options import BuildOptions
from coursesite.errors import BuildError, BuildErrors
from coursesite.execution.execute import (
    DoneCallback,
    LessonJob,
    LocalExecutor,
    StartCallback,
    run_job,
)
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.execution.hardware import unseen_hardware
from coursesite.execution.machineshares import threads_per_lesson

if TYPE_CHECKING:  # distributed is imported only when a build uses a cluster
    from distributed import Client, Future

ATTEMPTS = 2  # a lesson whose worker dies is run once more, on whichever worker takes it
CONNECT_SECONDS = 10.0  # for each network step of connecting: reaching, handshake, workers
ANSWER_SECONDS = 30.0  # for the scheduler to say which workers it has, once connected
CHECK_SECONDS = 2  # how often the cluster is asked whether a waiting lesson can still run
GRACE_SECONDS = 30  # how long a lesson may wait for a worker with its hardware to (re)join
MARGIN_SECONDS = 60  # beyond the lesson's timeout, before a started lesson counts as lost
DIED_HINT = (
    "the lesson may need more memory than a worker has, or crash its interpreter; "
    "run it on its own with `build.py --lesson SLUG` to see"
)


def create_executor(options: BuildOptions, settings: Settings) -> LocalExecutor | DaskExecutor:
    """The local process pool, unless a cluster is named (`--cluster` wins over settings)."""
    address = options.cluster or settings.cluster
    return DaskExecutor(address) if address else LocalExecutor(options.jobs)


def resources_for(hardware: str) -> dict[str, int] | None:
    """The worker resource a lesson needs; any worker has a CPU, so cpu lessons need none."""
    return None if hardware == "cpu" else {hardware: 1}


class DaskExecutor:
    """Runs lessons on the workers of the Dask scheduler at `address`, as many at once as the
    workers have threads (`dask worker --nthreads N`)."""

    runs_code = True

    def __init__(self, address: str):
        self.address = address
        self.where = f"on the Dask cluster at {address}"

    def run(
        self,
        jobs: list[LessonJob],
        on_start: StartCallback = lambda job: None,
        on_done: DoneCallback = lambda job, record: None,
    ) -> list[ExecutionRecord | BuildError]:
        """One result per job, in order: its record, or the error that stopped it."""
        client = self._connect()
        build = uuid.uuid4().hex[:12]
        events: queue.Queue = queue.Queue()
        client.subscribe_topic(_starts_topic(build), lambda event: events.put(("start", event[1])))
        try:
            live = _live_workers(client)
            outcomes: list = [None if _can_run(job, live) else self._no_worker(job) for job in jobs]
            waiting = {
                index: _submit(client, job, build, partial(events.put, ("done", index)))
                for index, job in enumerate(jobs)
                if outcomes[index] is None
            }
            self._follow(client, jobs, waiting, outcomes, events, on_start, on_done)
            return outcomes
        finally:
            client.unsubscribe_topic(_starts_topic(build))
            _close(client)  # releases whatever is still queued on the scheduler

    def _connect(self):
        from distributed import Client

        try:
            # Dask's Client waits for the scheduler's handshake without a time limit: a
            # server that accepts and never answers (or speaks HTTP) would hold the build.
            _shake_hands(self.address, CONNECT_SECONDS)
            client = Client(self.address, timeout=CONNECT_SECONDS, set_as_default=False)
        except Exception as problem:  # whatever the address, one line naming it
            raise BuildErrors(
                [
                    BuildError(
                        f"cannot reach the Dask scheduler at {self.address}: {_described(problem)}",
                        hint=_unreachable_hint(self.address),
                    )
                ]
            ) from None
        try:
            client.wait_for_workers(1, timeout=CONNECT_SECONDS)
        except TimeoutError:
            _close(client)
            raise BuildErrors(
                [
                    BuildError(
                        f"the Dask cluster at {self.address} has no workers",
                        hint=f"start one with `dask worker {self.address}` (docs/scaling.md)",
                    )
                ]
            ) from None
        return client

    def _follow(
        self,
        client: Client,
        jobs: list[LessonJob],
        waiting: dict,
        outcomes: list,
        events: queue.Queue,
        on_start: StartCallback,
        on_done: DoneCallback,
    ) -> None:
        """Collect results as they come, and give up on lessons that can no longer finish."""
        index_of = {job.slug: index for index, job in enumerate(jobs)}
        started: dict[int, tuple[float, str]] = {}  # latest start of each lesson: when, where
        stranded: dict[int, float] = {}  # since when no worker could take each lesson
        next_check = monotonic() + CHECK_SECONDS
        while waiting:
            try:
                kind, item = events.get(timeout=CHECK_SECONDS)
            except queue.Empty:
                kind, item = None, None
            if kind == "start" and index_of.get(item["slug"]) in waiting:
                index = index_of[item["slug"]]
                if index not in started:
                    on_start(jobs[index])
                started[index] = (monotonic(), item["worker"])
            elif kind == "done" and item in waiting:
                outcomes[item] = _outcome(waiting.pop(item), jobs[item])
                if isinstance(outcomes[item], ExecutionRecord):
                    on_done(jobs[item], outcomes[item])
            if monotonic() >= next_check:
                self._give_up_on_lost(client, jobs, waiting, outcomes, started, stranded)
                next_check = monotonic() + CHECK_SECONDS

    def _give_up_on_lost(
        self,
        client: Client,
        jobs: list[LessonJob],
        waiting: dict,
        outcomes: list,
        started: dict[int, tuple[float, str]],
        stranded: dict[int, float],
    ) -> None:
        """Fail lessons whose hardware left the cluster, or whose live worker is far past
        their timeout, so that the build ends instead of waiting for them."""
        live = _live_workers(client)
        now = monotonic()
        for index, future in list(waiting.items()):
            job, problem = jobs[index], None
            since, worker = started.get(index, (now, ""))
            if live is not None and worker in live and now - since > job.timeout + MARGIN_SECONDS:
                problem = BuildError(
                    f"no result from the Dask worker {worker} {job.timeout + MARGIN_SECONDS} s "
                    f"after lesson '{job.slug}' started there",
                    job.path,
                    hint="the worker may be stuck or cut off from the scheduler; see its log",
                )
            elif live is not None and not _can_run(job, live):
                if now - stranded.setdefault(index, now) > GRACE_SECONDS:
                    problem = self._no_worker(job, left=True)
            else:
                stranded.pop(index, None)
            if problem:
                future.cancel()
                outcomes[index] = problem
                del waiting[index]

    def _no_worker(self, job: LessonJob, left: bool = False) -> BuildError:
        when = f"has been in the cluster for {GRACE_SECONDS:.0f} s" if left else "is in the cluster"
        if resources_for(job.hardware) is None:
            return BuildError(
                f"lesson '{job.slug}' could not run: no worker {when} at {self.address}",
                job.path,
                hint=f"start one with `dask worker {self.address}`",
            )
        return BuildError(
            f"lesson '{job.slug}' needs hardware: {job.hardware}, and no worker with a "
            f"'{job.hardware}' resource {when} at {self.address}",
            job.path,
            hint=f"on a machine with a {job.hardware.upper()}, start `dask worker {self.address} "
            f'--resources "{job.hardware}=1"` (docs/scaling.md); or build without a '
            "cluster, where the lesson runs on this machine",
        )


def _shake_hands(address: str, seconds: float) -> None:
    """Connect to the scheduler at `address` and exchange Dask's handshake, within `seconds`
    in all, on an event loop of its own in a thread of its own (the caller's thread may run
    a loop already: a notebook kernel, or Playwright's in a test session, where asyncio.run
    refuses to start); raise if that fails or takes longer."""
    from distributed.comm import connect

    async def shake() -> None:
        comm = await connect(address, timeout=seconds)
        await comm.close()

    async def within_deadline() -> None:
        await asyncio.wait_for(shake(), seconds)

    with ThreadPoolExecutor(1, thread_name_prefix="dask handshake") as thread:
        thread.submit(asyncio.run, within_deadline()).result()


def _unreachable_hint(address: str) -> str:
    scheme = address.partition("://")[0] if "://" in address else "tcp"
    if scheme == "tls":
        return (
            "a tls:// scheduler needs this machine's certificates in Dask's configuration "
            "(distributed.comm.tls: ca-file, client.cert, client.key); or give its tcp:// "
            "address in --cluster or settings.cluster"
        )
    if scheme != "tcp":
        return (
            f"Dask cannot connect to {scheme}:// addresses in the build's environment; give "
            "the scheduler's tcp:// address in --cluster or settings.cluster"
        )
    return (
        "start one with `dask scheduler` (docs/scaling.md), or correct "
        "--cluster or settings.cluster in lessons.yaml"
    )


def _close(client: Client) -> None:
    """Close the connection; a scheduler that no longer answers is left to notice."""
    with contextlib.suppress(Exception):
        client.close(timeout=CONNECT_SECONDS)


def _described(problem: Exception) -> str:
    """An exception in a few words, on one line."""
    if isinstance(problem, TimeoutError):
        return f"no answer within {CONNECT_SECONDS:g} s (is it a Dask scheduler's address?)"
    text = " ".join(str(problem).split()) or type(problem).__name__
    return text if len(text) <= 200 else text[:199] + "…"


def _submit(client: Client, job: LessonJob, build: str, when_done: Callable[[], None]) -> Future:
    future = client.submit(
        pickle.loads,
        task_bytes(job, build),
        key=f"lesson-{job.slug}-{build}",
        resources=resources_for(job.hardware),
        pure=False,
    )
    future.add_done_callback(lambda future: when_done())
    return future


def task_bytes(job: LessonJob, build: str) -> bytes:
    """The task as bytes whose unpickling runs `run_on_worker(job, build)`.

    The scheduler unpickles every task it is given. Handed `pickle.loads` and bytes, it needs
    nothing of this project, so a plain `dask scheduler` will do; only workers import it.
    """
    return pickle.dumps(_Call(run_on_worker, (job, build)))


class _Call:
    def __init__(self, function: Callable, args: tuple):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


def run_on_worker(job: LessonJob, build: str) -> ExecutionRecord | BuildError:
    """The task a worker runs: the lesson, in fresh processes on the worker's machine.

    A failing lesson is returned, not raised, so that Dask does not retry it; only a worker
    that dies is a reason to run the lesson again, and only ATTEMPTS times in all, whatever
    the scheduler's own `allowed-failures` (each attempt is logged as an event to count).
    """
    from distributed import get_client, get_worker

    worker = get_worker()
    attempts = f"{_starts_topic(build)}-{job.slug}"
    earlier = [message["worker"] for _, message in get_client().get_events(attempts)]
    if len(earlier) >= ATTEMPTS:
        return BuildError(
            f"the Dask worker running this lesson died, on each of "
            f"{len(earlier)} tries ({', '.join(earlier)}); not tried again",
            job.path,
            hint=DIED_HINT.replace("SLUG", job.slug),
        )
    worker.log_event([attempts, _starts_topic(build)], {"slug": job.slug, "worker": worker.address})
    # The lessons running at once on this worker share its cores, as in the local pool.
    threads = threads_per_lesson(worker.state.nthreads)
    try:
        record = run_job(job, threads)
    except BuildError as error:
        return error
    # The worker's resources say where the lesson was sent; only its probed devices say what it
    # ran on. A gpu or tpu lesson that saw no such device fails rather than claim it.
    offered = worker.state.total_resources
    record = replace(
        record,
        worker=worker.address,
        worker_resources=", ".join(
            f"{name}={amount:g}" for name, amount in sorted(offered.items())
        ),
    )
    return unseen_hardware(job, record) or record


def _outcome(future: Future, job: LessonJob) -> ExecutionRecord | BuildError:
    from distributed.scheduler import KilledWorker

    if future.status == "finished":
        return future.result()
    if future.status == "cancelled":
        return BuildError(
            "the Dask cluster dropped this lesson before it finished",
            job.path,
            hint="the scheduler may have restarted or the connection to it was lost; build again",
        )
    error = future.exception()
    if isinstance(error, KilledWorker):
        return BuildError(
            f"the Dask workers running this lesson died ({error})",
            job.path,
            hint=DIED_HINT.replace("SLUG", job.slug),
        )
    return BuildError(
        f"a Dask worker could not run this lesson: {type(error).__name__}: {error}",
        job.path,
        hint="start workers in the build's environment: the packages of "
        "requirements.txt, and this project's folder on PYTHONPATH "
        "(docs/scaling.md)",
    )


def _live_workers(client: Client) -> dict[str, dict] | None:
    """Address -> resources of every live worker; None if the scheduler is not answering
    (within ANSWER_SECONDS: Client.scheduler_info would wait without a limit)."""
    scheduler = client.scheduler
    if scheduler is None:
        return None
    try:
        info = client.sync(scheduler.identity, n_workers=-1, callback_timeout=ANSWER_SECONDS)
        workers = info["workers"]
    except (OSError, TimeoutError):
        return None
    return {address: worker.get("resources") or {} for address, worker in workers.items()}


def _can_run(job: LessonJob, live: dict[str, dict] | None) -> bool:
    if live is None:
        return True  # unknown: let the scheduler decide, and check again later
    needed = resources_for(job.hardware) or {}
    return any(
        all(resources.get(name, 0) >= amount for name, amount in needed.items())
        for resources in live.values()
    )


def _starts_topic(build: str) -> str:
    return f"coursesite-starts-{build}"
