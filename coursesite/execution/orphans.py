"""The build's side of a lost guardian: the lesson processes it leaves, adopted and ended here.

A lesson's guardian (guardian.py) is the child subreaper of everything the lesson starts.
Lesson code can still stop (SIGSTOP) or kill its guardian: it runs as the same user. So while
any guardian runs, the build is a child subreaper too (PR_SET_CHILD_SUBREAPER): when a
guardian dies, or the build kills one that stopped answering, what the lesson started, in
sessions of its own too, becomes the build's child rather than init's, and is killed and
reaped here.

Which of the build's children are such orphans: those in a session other than the build's
(a lesson's processes all run in sessions of their own, and a process can only ever leave
its session for a new one of its own), started after the lost guardian, and not started by
the build itself (the guardians, registered by `start_own`). Other children of the build
(Pagefind, the folder remover, a Dask cluster's processes) share its session or started
earlier, and are left alone; the build never waits for any child but the orphans it kills,
so no exit status is taken from under subprocess.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable

PR_SET_CHILD_SUBREAPER = 36
END_SECONDS = 10.0  # how long the orphans of a lost guardian may take to be killed and reaped

_LOCK = threading.Lock()  # a guardian started is registered before any sweep sees it
_OWN: set[int] = set()  # pids of the guardians this process started and has not finished


def start_own(start: Callable[[], subprocess.Popen]) -> subprocess.Popen:
    """Start a guardian (in a session of its own) with `start`, the build being a child
    subreaper from before it starts until `release_own` is called for each one started."""
    with _LOCK:
        if not _OWN:
            _set_subreaper(True)
        try:
            process = start()
        except BaseException:
            if not _OWN:
                _set_subreaper(False)
            raise
        _OWN.add(process.pid)
    return process


def release_own(pid: int) -> None:
    """Guardian `pid` is over; once none is left, orphans go to init again, as before the
    lessons ran. Calling it twice for one guardian is harmless."""
    with _LOCK:
        if pid in _OWN:
            _OWN.discard(pid)
            if not _OWN:
                _set_subreaper(False)


def end_orphans(since: int, seconds: float = END_SECONDS) -> None:
    """Kill and reap every orphan the build adopted that started after `since` (clock ticks
    since boot: when the lost guardian was given its job), again until none is left: the
    children of each one killed are adopted as it dies."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with _LOCK:
            adopted = _adopted(since)
            for pid in adopted:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        if not adopted:
            return
        for pid in adopted:
            _reap(pid, deadline)


def _adopted(since: int) -> list[int]:
    me, session = os.getpid(), os.getsid(0)
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in _OWN:
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            parent, its_session, started = int(fields[1]), int(fields[3]), int(fields[19])
        except (OSError, IndexError, ValueError):  # gone meanwhile
            continue
        if parent == me and its_session != session and started >= since:
            found.append(int(name))
    return found


def clock_ticks() -> int:
    """Now, in the unit and from the origin of a process's start time in /proc (clock ticks
    since boot)."""
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK"))


def _reap(pid: int, deadline: float) -> None:
    """Wait for orphan `pid`, killed, to end; its children are then the build's."""
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped already
            return
        if done or time.monotonic() > deadline:
            return
        time.sleep(0.01)


def _set_subreaper(on: bool) -> None:
    # Where prctl is missing or refuses, orphans go to init, as they did before.
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)
