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
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from coursesite.execution import orphans
from coursesite.execution.capture import OutputCapture

# A lesson's folder (lesson_folder) and, in it, the folder its code runs in: failures.py
# reads a path in the message of a file the code could not open as one relative to it.
LESSON_FOLDER = "lesson-"
RUN_FOLDER = "run"

GUARDIAN = Path(__file__).with_name("guardian.py")
# How long a guardian may take to carry out a command (kill a process, end) before it is
# taken as lost, stopped or killed by its lesson, and the build ends its processes itself.
ANSWER_SECONDS = 5.0
START_SECONDS = 60.0  # how long it may take to report both processes started
_RUNNING: set[Guardian] = set()  # lessons' guardians, stopped when a build is interrupted


def stop_all() -> None:
    """Stop every lesson process this build started (on Ctrl-C or SIGTERM)."""
    for guardian in list(_RUNNING):
        guardian.finish()


class LessonProcess:
    """One of a lesson's processes, the runner or main.py: a child of the lesson's guardian,
    which reports its pid and exit status. Stands where subprocess.Popen stood."""

    def __init__(
        self,
        guardian: Guardian,
        name: str,
        args: list[str],
        pipes: OutputPipes,
        stdin: bool = False,
    ):
        self.guardian, self.name, self.args = guardian, name, args
        self.pid = 0
        self.returncode: int | None = None
        self.ended = threading.Event()
        self.started = threading.Event()  # its pid is known, or it ended
        (read_out, self.stdout_fd), (read_err, self.stderr_fd) = pipes
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

    def stop(self) -> None:
        """Kill its session and wait until it is gone. A guardian that does not report it
        gone within ANSWER_SECONDS is lost: the build then ends the lesson's processes."""
        self.kill()
        if not self.ended.wait(ANSWER_SECONDS):
            self.guardian.abandon()

    def started_as(self, pid: int) -> None:
        self.pid = pid
        self.started.set()

    def ended_with(self, status: int) -> None:
        if self.returncode is None:
            self.returncode = status
        self.ended.set()
        self.started.set()


# Address space a process reserves is not memory it uses: JAX's CPU client alone reserves
# about 2 GB for 8 devices and touches little of it. The limit is the guardian's watch on
# resident memory; the address-space limit only stops a runaway between two of its looks.
ADDRESS_SPACE_HEADROOM = 8 * 1024**3


def address_space_backstop(memory_bytes: int) -> int:
    """The address-space limit of each lesson process, for a lesson that may use
    `memory_bytes` (resident, all its processes together); 0 (no limit) stays 0."""
    return memory_bytes + ADDRESS_SPACE_HEADROOM if memory_bytes else 0


class Guardian:
    """The build's end of a lesson's guardian.py: starts it, reads its reports, sends it
    commands. The guardian's stdin is a pipe from here; when the build dies, it ends."""

    def __init__(self, folder: Path, memory_bytes: int, spare: bool = True):
        """`spare`: whether it may take the guardian started ahead (start_spare_guardian),
        which holds output pipes only: a process that reads commands needs its own."""
        self.folder, self.memory_bytes = folder, memory_bytes
        self.children: dict[str, LessonProcess] = {}
        self.specs: list[dict] = []
        self.memory_used = 0  # bytes, once the guardian stopped the lesson for using more
        self.memory_user = ""  # and the name of the process that (with its children) did
        self.errors: list[str] = []
        self.process: subprocess.Popen | None = None
        self.started_at = 0  # when it was given its job, in clock ticks since boot
        self.lost = ""  # "stopped" (SIGSTOP) or "killed", when the guardian was lost
        self.ending = False  # the build told the guardian to end, or ended it
        self._lock = threading.Lock()
        self._abandon_lock = threading.Lock()
        self._reader: threading.Thread | None = None
        self._spare = _take_spare() if spare else None

    def add(
        self, name: str, command: list[str], work: Path, env: dict[str, str], stdin: bool = False
    ) -> LessonProcess:
        """A process for the guardian to start: in `work`, in a session of its own, with
        its stdout and stderr going to pipes read here (and with `stdin`, its stdin coming
        from a pipe written here: `process.stdin`)."""
        pipes = self._spare.pipes.pop(0) if self._spare else _output_pipes()
        process = LessonProcess(self, name, command, pipes, stdin)
        self.children[name] = process
        spec = {
            "name": name,
            "args": command,
            "cwd": str(work),
            "env": env,
            "stdout": process.stdout_fd,
            "stderr": process.stderr_fd,
            "address_space_bytes": address_space_backstop(self.memory_bytes),
        }
        if process.stdin_fd is not None:
            spec["stdin"] = process.stdin_fd
        self.specs.append(spec)
        return process

    def start(self) -> None:
        """Start the guardian and, through it, the processes added; once this returns they
        exist (or are reported ended, when one could not start)."""
        if self._spare:
            assert not self._spare.pipes, "a spare guardian has pipes for the runner and main.py"
            spare = self._spare.process
            self.process = orphans.start_own(lambda: spare)
        else:
            handed_on = [fd for p in self.children.values() for fd in (p.stdout_fd, p.stderr_fd)]
            handed_on += [p.stdin_fd for p in self.children.values() if p.stdin_fd is not None]
            self.process = orphans.start_own(lambda: _start_guardian(handed_on))
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
        # What the lesson starts comes after this moment; anything the build started before
        # (its own children, in sessions of their own too) is not the lesson's to end.
        self.started_at = orphans.clock_ticks()
        self.send(json.dumps(job))
        deadline = time.monotonic() + START_SECONDS
        for process in self.children.values():
            if not process.started.wait(max(0.0, deadline - time.monotonic())):
                self.abandon()

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
            if self._spare:  # taken, but never given its job
                self._spare.end()
            return
        self.ending = True
        self.send("end")
        try:
            process.wait(timeout=ANSWER_SECONDS)
        except subprocess.TimeoutExpired:  # stopped by the lesson, most likely
            self.abandon()
        if process.returncode != 0:  # killed by the lesson, say: its orphans are the build's
            orphans.end_orphans(self.started_at)
        with self._lock, contextlib.suppress(OSError):
            if process.stdin:
                process.stdin.close()
        if self._reader:
            self._reader.join()
        if process.stdout:
            process.stdout.close()
        _RUNNING.discard(self)
        orphans.release_own(process.pid)

    def abandon(self) -> None:
        """End a guardian that stopped answering, and the lesson with it: SIGKILL (which
        ends a stopped process too) ends the guardian, the runner and main.py die with it
        (their parent-death signal), and whatever they started becomes the build's child
        (orphans.py), killed and reaped here."""
        process = self.process
        with self._abandon_lock:
            if process is None or process.returncode is not None:
                return
            self.ending = True
            self.lost = "stopped" if _state_of(process.pid) == "stopped" else "killed"
            process.kill()
            process.wait()
            orphans.end_orphans(self.started_at)
        for child in self.children.values():
            child.ended_with(-signal.SIGKILL)

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            kind, _, rest = line.decode("utf-8", "replace").rstrip("\n").partition(" ")
            if kind == "started":
                name, pid = rest.split()
                self.children[name].started_as(int(pid))
            elif kind == "exit":
                name, status = rest.split()
                self.children[name].ended_with(int(status))
            elif kind == "memory":
                used, self.memory_user = rest.split()
                self.memory_used = int(used)
            elif kind == "error":
                self.errors.append(rest)
        if not self.ending:  # killed, most likely by the lesson's code
            self.lost = self.lost or "killed"
        for process in self.children.values():  # the guardian is gone, and so are they
            process.ended_with(-signal.SIGKILL)


# -- guardians started ahead ----------------------------------------------------------------

OutputPipes = tuple[tuple[int, int], tuple[int, int]]  # (read, write) of stdout, of stderr


def _output_pipes() -> OutputPipes:
    return os.pipe(), os.pipe()


def _start_guardian(write_ends: list[int]) -> subprocess.Popen:
    """A guardian process, holding the pipe ends its children use (closed here)."""
    try:
        return subprocess.Popen(
            [sys.executable, "-I", "-S", str(GUARDIAN)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            pass_fds=write_ends,
            start_new_session=True,
        )  # the terminal's hangup and Ctrl-C are not for it
    finally:
        for fd in write_ends:  # the guardian holds them now
            os.close(fd)


@dataclass
class _SpareGuardian:
    """A guardian started before any lesson is known, waiting for its job on stdin."""

    process: subprocess.Popen
    pipes: list[OutputPipes]  # for the runner and main.py, in the order they are added
    pid: int  # the build process that started it (a forked process does not use it)

    def end(self) -> None:
        """Close its input before any job (it exits), and the read ends left unused."""
        for stream in (self.process.stdin, self.process.stdout):
            if stream:
                with contextlib.suppress(OSError):
                    stream.close()
        for (out, _), (err, _) in self.pipes:
            os.close(out)
            os.close(err)
        self.pipes.clear()


_SPARE_LOCK = threading.Lock()
_SPARE: list[_SpareGuardian] = []


def start_spare_guardian() -> None:
    """Start a guardian for the build's first lesson to run, while the build still reads
    and keys its lessons: a guardian's interpreter takes ~30 ms to start, on the critical
    path of a code edit otherwise. Unused, it ends at `end_spare_guardian` (or when the
    build dies: its stdin closes before any job came)."""
    pipes = [_output_pipes(), _output_pipes()]
    write_ends = [write for pair in pipes for _, write in pair]
    try:
        process = _start_guardian(write_ends)
    except OSError:
        for pair in pipes:
            os.close(pair[0][0])
            os.close(pair[1][0])
        return  # the lesson will start a guardian of its own, and report what fails
    # The write ends are closed here, and open under the same numbers in the guardian,
    # which the job names them by.
    with _SPARE_LOCK:
        _SPARE.append(_SpareGuardian(process, pipes, os.getpid()))


def end_spare_guardian() -> None:
    """End the spare guardian if no lesson took it; it exits as soon as it reads the end
    of its input (subprocess reaps it later)."""
    with _SPARE_LOCK:
        spares = list(_SPARE)
        _SPARE.clear()
    for spare in spares:
        spare.end()


def _take_spare() -> _SpareGuardian | None:
    with _SPARE_LOCK:
        if _SPARE and _SPARE[0].pid == os.getpid():
            return _SPARE.pop()
    return None


# -- clean-ups while the build goes on ------------------------------------------------------

_CLEAN_UPS_LOCK = threading.Lock()
_CLEAN_UPS: list[threading.Thread] = []


def clean_up_in_background(clean_up: Callable[[], None]) -> None:
    """Run a lesson's clean-up (its guardian's end: ~15 ms of killing what is left and of
    the guardian's exit; its folder's removal) while the build renders its pages, instead
    of before. The build waits for it before it returns (`wait_for_clean_ups`)."""
    thread = threading.Thread(target=clean_up, name="lesson clean-up")
    with _CLEAN_UPS_LOCK:
        _CLEAN_UPS.append(thread)
    thread.start()


def wait_for_clean_ups() -> None:
    """Until every lesson's clean-up handed to `clean_up_in_background` is done."""
    with _CLEAN_UPS_LOCK:
        threads = list(_CLEAN_UPS)
        _CLEAN_UPS.clear()
    for thread in threads:
        thread.join()


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
        with tempfile.TemporaryDirectory(prefix=f"{LESSON_FOLDER}{slug}-", dir=base) as folder:
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


def _state_of(pid: int) -> str:
    """What /proc says process `pid` is doing, in words: "stopped", "sleeping", ..."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"State:"):
                    return line.decode().split("(", 1)[-1].rstrip(")\n ")
    except OSError:
        pass
    return "gone"


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
