"""One build at a time per course: a second build waits for nobody and says why it stopped."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import BuildError, BuildErrors


@contextmanager
def build_lock(cache: Path) -> Iterator[None]:
    """Hold the course's build lock (a file lock in the cache folder) for the block."""
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / "build.lock"
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise BuildErrors([BuildError(
                f"another build of this course is running ({holder})", path,
                hint="wait for it to finish; two builds at once would mix their output and "
                     "cache")]) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}, started {time.strftime('%H:%M:%S')}")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
