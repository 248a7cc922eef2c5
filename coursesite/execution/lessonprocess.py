"""The build's side of each lesson's guardian (guardian.py), and the lessons' folders.

A lesson's two processes, the runner and the reader-style main.py, are children of a small
guardian process that the build talks to over a pipe: it reports their pids and exit
statuses, kills them (and everything they started) on request, when they end, and when
the build dies, and stops a lesson that uses more memory than it may. LessonProcess stands
where subprocess.Popen stood, so execute.py waits and times out as before.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from coursesite.execution.capture import OutputCapture

GUARDIAN = Path(__file__).with_name("guardian.py")
_RUNNING: set[Guardian] = set()  # lessons' guardians, stopped when a build is interrupted


def stop_all() -> None:
    """Stop every lesson process this build started (on Ctrl-C or SIGTERM)."""
    for guardian in list(_RUNNING):
        guardian.finish()


class LessonProcess:
    """One of a lesson's processes, the runner or main.py: a child of the lesson's guardian,
    which reports its pid and exit status. Stands where subprocess.Popen stood."""

    def __init__(self, guardian: Guardian, name: str, args: list[str], stdin: bool = False):
        self.guardian, self.name, self.args = guardian, name, args
        self.pid = 0
        self.returncode: int | None = None
        self.ended = threading.Event()
        read_out, self.stdout_fd = os.pipe()
        read_err, self.stderr_fd = os.pipe()
        # Read by the output capture, which closes them when the process has ended.
        self.stdout: IO[bytes] = open(read_out, "rb", buffering=0)  # noqa: SIM115
        self.stderr: IO[bytes] = open(read_err, "rb", buffering=0)  # noqa: SIM115
        self.capture: OutputCapture | None = None
        # Only the warm preview's interpreter reads commands (coursesite/warm): the lesson
        # processes of a build read nothing.
        self.stdin: IO[bytes] | None = None
        self.stdin_fd: int | None = None
        if stdin:
            self.stdin_fd, write_in = os.pipe()
            self.stdin = open(write_in, "wb", buffering=0)  # noqa: SIM115

    def captured(self) -> OutputCapture:
        assert self.capture is not None, "its output is captured once the guardian started"
        return self.capture

    def wait(self, timeout: float | None = None) -> int:
        if not self.ended.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        assert self.returncode is not None  # set before `ended`
        return self.returncode

    def kill(self) -> None:
        """Kill its session (SIGKILL): it and the children it started there."""
        self.guardian.send(f"kill {self.name}")

    def ended_with(self, status: int) -> None:
        if self.returncode is None:
            self.returncode = status
        self.ended.set()


class Guardian:
    """The build's end of a lesson's guardian.py: starts it, reads its reports, sends it
    commands. The guardian's stdin is a pipe from here; when the build dies, it ends."""

    def __init__(self, folder: Path, memory_bytes: int):
        self.folder, self.memory_bytes = folder, memory_bytes
        self.children: dict[str, LessonProcess] = {}
        self.specs: list[dict] = []
        self.memory_used = 0  # bytes, once the guardian stopped the lesson for using more
        self.memory_user = ""  # and the name of the process that (with its children) did
        self.errors: list[str] = []
        self.process: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._reader: threading.Thread | None = None

    def add(
        self, name: str, command: list[str], work: Path, env: dict[str, str], stdin: bool = False
    ) -> LessonProcess:
        """A process for the guardian to start: in `work`, in a session of its own, with
        its stdout and stderr going to pipes read here (and with `stdin`, its stdin coming
        from a pipe written here: `process.stdin`)."""
        process = LessonProcess(self, name, command, stdin)
        self.children[name] = process
        spec = {
            "name": name,
            "args": command,
            "cwd": str(work),
            "env": env,
            "stdout": process.stdout_fd,
            "stderr": process.stderr_fd,
            "address_space_bytes": self.memory_bytes,
        }
        if process.stdin_fd is not None:
            spec["stdin"] = process.stdin_fd
        self.specs.append(spec)
        return process

    def start(self) -> None:
        """Start the guardian and, through it, the processes added; once this returns they
        exist (or are reported ended, when one could not start)."""
        handed_on = [fd for p in self.children.values() for fd in (p.stdout_fd, p.stderr_fd)]
        handed_on += [p.stdin_fd for p in self.children.values() if p.stdin_fd is not None]
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(GUARDIAN)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                pass_fds=handed_on,
                start_new_session=True,
            )  # the terminal's hangup and Ctrl-C are not for it
        finally:
            for fd in handed_on:  # the pipe ends its children use: the guardian holds them now
                os.close(fd)
        _RUNNING.add(self)
        self._reader = threading.Thread(
            target=self._read, daemon=True, name=f"guardian {self.process.pid}"
        )
        self._reader.start()
        job = {
            "folder": str(self.folder),
            "memory_bytes": self.memory_bytes,
            "children": self.specs,
        }
        self.send(json.dumps(job))
        for process in self.children.values():
            while not process.pid and not process.ended.wait(0.01):
                pass

    def send(self, line: str) -> None:
        stdin = self.process.stdin if self.process else None
        if stdin is None:
            return
        with self._lock, contextlib.suppress(OSError, ValueError):  # ValueError: closed
            stdin.write(line.encode() + b"\n")
            stdin.flush()

    def finish(self) -> None:
        """Kill every process of the lesson that is left, and the guardian ends."""
        process = self.process
        if process is None:
            return
        self.send("end")
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:  # never seen: the guardian kills, then exits
            process.kill()
            process.wait()
        with self._lock, contextlib.suppress(OSError):
            if process.stdin:
                process.stdin.close()
        if self._reader:
            self._reader.join()
        if process.stdout:
            process.stdout.close()
        _RUNNING.discard(self)

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            kind, _, rest = line.decode("utf-8", "replace").rstrip("\n").partition(" ")
            if kind == "started":
                name, pid = rest.split()
                self.children[name].pid = int(pid)
            elif kind == "exit":
                name, status = rest.split()
                self.children[name].ended_with(int(status))
            elif kind == "memory":
                used, self.memory_user = rest.split()
                self.memory_used = int(used)
            elif kind == "error":
                self.errors.append(rest)
        for process in self.children.values():  # the guardian is gone, and so are they
            process.ended_with(-signal.SIGKILL)


# -- temporary folders ----------------------------------------------------------------------


@dataclass
class _BuildFolder:
    """This build's folder of lesson folders, while lessons run."""

    path: Path | None = None
    pid: int = 0  # the process that made it (a forked process makes its own)
    lessons: int = 0


_FOLDERS_LOCK = threading.Lock()
_FOLDERS = _BuildFolder()
_BUILD_FOLDER = re.compile(r"coursesite-(\d+)-(\d+)-(\d+)$")  # namespace, pid, start time


@contextlib.contextmanager
def lesson_folder(slug: str) -> Iterator[Path]:
    """A fresh folder for one lesson, inside a folder of this build's own.

    The build's folder is named after its pid and that process's start time: a later build
    can tell one whose build is gone (killed outright; the guardian removes its lesson's
    folder, unless it was killed too) and removes it. It is removed once no lesson runs.
    The name starts with the pid namespace's number: a build in another container that
    shares the temporary folder has pids this one cannot see, and its folders are left be.
    """
    with _FOLDERS_LOCK:
        if _FOLDERS.path is None or _FOLDERS.pid != os.getpid():
            _reclaim_orphaned_folders()
            path = Path(tempfile.gettempdir()) / _build_folder_name(os.getpid())
            path.mkdir(exist_ok=True)
            _FOLDERS.path, _FOLDERS.pid, _FOLDERS.lessons = path, os.getpid(), 0
        _FOLDERS.lessons += 1
        base = _FOLDERS.path
    try:
        with tempfile.TemporaryDirectory(prefix=f"lesson-{slug}-", dir=base) as folder:
            yield Path(folder)
    finally:
        with _FOLDERS_LOCK:
            _FOLDERS.lessons -= 1
            if _FOLDERS.lessons == 0 and _FOLDERS.path == base:
                with contextlib.suppress(OSError):
                    base.rmdir()
                _FOLDERS.path = None


def _start_time(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot); None when there is no such one."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _pid_namespace() -> int:
    """The number of this process's pid namespace (0 where /proc does not say)."""
    try:
        return int(re.sub(r"\D", "", os.readlink("/proc/self/ns/pid")) or 0)
    except OSError:
        return 0


def _build_folder_name(pid: int) -> str:
    return f"coursesite-{_pid_namespace()}-{pid}-{_start_time(pid)}"


def _reclaim_orphaned_folders() -> None:
    """Remove the temporary folders of builds that are gone."""
    namespace = _pid_namespace()
    with contextlib.suppress(OSError):
        for entry in os.scandir(tempfile.gettempdir()):
            match = _BUILD_FOLDER.match(entry.name)
            if match and int(match[1]) == namespace and entry.is_dir(follow_symlinks=False):
                pid, started = int(match[2]), int(match[3])
                if pid != os.getpid() and _start_time(pid) != started:
                    shutil.rmtree(entry.path, ignore_errors=True)
