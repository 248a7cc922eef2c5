"""What a lesson's processes print, kept up to a cap in memory and never written to disk.

A step that prints without end must fill neither the disk nor the build's memory. Each
stream of each lesson process is a pipe, read as it is written by a thread: the first
`limit` bytes and the last TAIL bytes are kept, the rest is only counted. The thread stops
once the process is gone instead of waiting for the end of the pipe, which a child the
lesson left running could hold open for ever.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
import time
from collections.abc import Callable
from typing import IO, Protocol

TAIL = 16_384  # bytes kept of an overflowing stream's end: where a traceback is
CHUNK = 65_536
DRAIN_SECONDS = 0.5  # how long what a stopped process left in its pipes may take to read


class PipedProcess(Protocol):
    """What a capture reads from: a subprocess.Popen, or a lessonprocess.LessonProcess."""

    @property
    def pid(self) -> int: ...

    @property
    def stdout(self) -> IO[bytes] | None: ...

    @property
    def stderr(self) -> IO[bytes] | None: ...


class CappedStream:
    """The first `limit` bytes of a stream and its last TAIL bytes; the rest is counted."""

    def __init__(self, limit: int):
        self.limit, self.total = limit, 0
        self.head, self.tail = bytearray(), bytearray()

    @property
    def overflowed(self) -> bool:
        return self.total > self.limit

    def add(self, data: bytes) -> None:
        self.head += data[: max(0, self.limit - len(self.head))]
        self.total += len(data)
        self.tail = (self.tail + data)[-TAIL:]

    def text(self) -> str:
        """What was kept, with a marker where bytes were left out."""
        if not self.overflowed:
            return self.head.decode("utf-8", errors="replace")
        tail = self.tail[max(0, self.limit - (self.total - len(self.tail))) :]
        dropped = self.total - len(self.head) - len(tail)
        middle = f"\n[{dropped} bytes not kept]\n" if dropped else ""
        return (bytes(self.head) + middle.encode() + bytes(tail)).decode("utf-8", "replace")


class OutputCapture:
    """Reads a process's stdout and stderr pipes into CappedStreams, on a thread of its own.

    `on_overflow(name)` runs (on that thread) when stream `name` first passes its limit.
    """

    def __init__(
        self,
        process: PipedProcess,
        limits: dict[str, int],
        on_overflow: Callable[[str], None] = lambda name: None,
    ):
        self.streams = {name: CappedStream(limit) for name, limit in limits.items()}
        self._on_overflow = on_overflow
        assert process.stdout is not None and process.stderr is not None, "start it with pipes"
        self._pipes = [process.stdout, process.stderr]
        self._selector = selectors.DefaultSelector()
        for name, pipe in zip(("stdout", "stderr"), self._pipes, strict=False):
            os.set_blocking(pipe.fileno(), False)
            self._selector.register(pipe, selectors.EVENT_READ, name)
        self._stopping = threading.Event()
        self._thread = threading.Thread(
            target=self._read, daemon=True, name=f"output of pid {process.pid}"
        )
        self._thread.start()

    def finish(self) -> tuple[str, str]:
        """Once the process is gone: read what it left in the pipes; stdout and stderr."""
        self.close()
        return self.streams["stdout"].text(), self.streams["stderr"].text()

    def close(self) -> None:
        """Stop reading (what is still in the pipes is read first) and close the pipes."""
        self._stopping.set()
        self._thread.join()
        if self._selector.get_map() is not None:  # None once closed
            self._selector.close()
        for pipe in self._pipes:
            with contextlib.suppress(OSError):
                pipe.close()

    def _read(self) -> None:
        deadline = None
        while self._selector.get_map():
            if self._stopping.is_set() and deadline is None:
                deadline = time.monotonic() + DRAIN_SECONDS
            events = self._selector.select(timeout=0 if deadline else 0.1)
            if deadline and (not events or time.monotonic() > deadline):
                return
            for key, _ in events:
                self._read_from(key)

    def _read_from(self, key: selectors.SelectorKey) -> None:
        try:
            data = os.read(key.fd, CHUNK)
        except BlockingIOError:
            return
        if not data:
            self._selector.unregister(key.fileobj)
            return
        stream = self.streams[key.data]
        was_over = stream.overflowed
        stream.add(data)
        if stream.overflowed and not was_over:
            self._on_overflow(key.data)
