"""One build at a time per course and per output folder: a second build waits for nobody
and says why it stopped."""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from coursesite.errors import BuildError, BuildErrors, writing
from coursesite.files import short_digest


@contextmanager
def build_lock(cache: Path) -> Iterator[None]:
    """Hold the course's build lock (a file lock in the cache folder) for the block."""
    with _exclusive(
        cache / "build.lock",
        "another build of this course is running",
        "two builds at once would mix their output and cache",
    ):
        yield


@contextmanager
def import_lock(cache: Path) -> Iterator[None]:
    """Hold the course's import lock for the block: two imports at once would each add
    their lesson to the lessons.yaml they read, and the second would drop the first's."""
    with _exclusive(
        cache / "import.lock",
        "another import into this course is running",
        "two imports at once would each rewrite lessons.yaml",
    ):
        yield


@contextmanager
def output_lock(out: Path) -> Iterator[None]:
    """Hold the output folder's lock for the block: builds of two checkouts, or with two
    caches, into the same folder would replace each other's files. The lock file is named
    after the folder in the machine's temporary folder, so that nothing is left beside it."""
    out = out.resolve()
    with _exclusive(
        _output_lock_path(out),
        f"another build is writing {out}",
        "two builds into one folder would replace each other's files",
    ):
        yield


def forget_output_lock(out: Path) -> None:
    """Remove the lock file of an output folder no build will write again (`build.py
    check`'s temporary one, whose name no other build can choose); each check left one."""
    _output_lock_path(out.resolve()).unlink(missing_ok=True)


def _output_lock_path(out: Path) -> Path:
    return Path(tempfile.gettempdir()) / "coursesite-locks" / f"{short_digest(str(out))}.lock"


@contextmanager
def _exclusive(path: Path, busy: str, why: str) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise BuildErrors(
                [BuildError(f"{busy} ({holder})", path, hint=f"wait for it to finish; {why}")]
            ) from None
        handle.seek(0)
        handle.truncate()
        with writing(path):  # the disk may be full: name the lock file
            handle.write(f"pid {os.getpid()}, started {time.strftime('%H:%M:%S')}")
            handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
