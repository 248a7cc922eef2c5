"""Keeps one lesson's processes on a leash; started by execute.py, one per lesson.

    python -I -S guardian.py        (the job comes as one JSON line on stdin)

This file is a standalone script: it imports nothing from the generator. It starts the
lesson's processes (the runner and `python main.py`) as its children, each in a session of
its own, and makes itself their child subreaper, so that every process they start, even in
a new session or after a double fork, stays its descendant. Then it watches:

- its stdin, a pipe from the build. Commands come as lines: `kill NAME` kills that child's
  session, `end` kills every descendant and exits. End of file without `end` means the build
  died (SIGKILL, SIGHUP, the OOM killer): it kills every descendant, removes the lesson's
  temporary folder and exits;
- its children: each one's exit is reported on stdout as `exit NAME STATUS` (a returncode as
  subprocess gives it: negative for a signal);
- memory: every POLL seconds, the resident memory (RSS) of each child and all its
  descendants together. Past the lesson's limit it reports `memory BYTES NAME` and kills
  every descendant. (The runner and main.py run the same code side by side: each of the two
  runs may use the limit, as the lesson run once by a reader may.)

Its stdout carries these reports, one per line: `started NAME PID`, `exit NAME STATUS`,
`memory BYTES NAME`, `error TEXT`.
"""

import contextlib
import ctypes
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
POLL = 0.1  # seconds between two looks at the descendants' memory
PAGE = os.sysconf("SC_PAGE_SIZE")
ME = os.getpid()
STOPPING = ("SIGHUP", "SIGINT", "SIGTERM")  # ignored here, as they are not for this process

_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option, value):
    if _libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def report(line):
    with contextlib.suppress(OSError):  # the build is gone; its stdin's end says so too
        os.write(1, (line + "\n").encode("utf-8", "replace"))


def read_small(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def processes(skip=frozenset()):
    """{pid: (parent pid, start time, whether a zombie)} of every process but those in
    `skip`."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in skip:
            continue
        try:
            fields = read_small(f"/proc/{name}/stat").rsplit(b")", 1)[1].split()
            table[int(name)] = (int(fields[1]), int(fields[19]), fields[0] in (b"Z", b"X"))
        except (OSError, IndexError, ValueError):  # gone meanwhile
            continue
    return table


def resident_bytes(pid):
    try:
        return int(read_small(f"/proc/{pid}/statm").split()[1]) * PAGE
    except (OSError, IndexError, ValueError):  # gone meanwhile
        return 0


def signal_quietly(pid):
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


class Guardian:
    def __init__(self, job):
        self.folder = job["folder"]
        self.memory_limit = job["memory_bytes"]
        self.children = {}  # pid -> name, until reaped
        self.sessions = {}  # name -> pid (its session's id)
        self.lineage = {}  # (pid, start time) -> the name of the child it descends from
        self.foreign = set()  # pids of processes that were not descendants at a full look
        self.looks = 0
        self.memory_reported = False
        for child in job["children"]:
            self.start(child)

    def start(self, child):
        limit = child.get("address_space_bytes")

        def in_child():
            for name in STOPPING:  # the lesson's code gets the usual signals back
                signal.signal(getattr(signal, name), signal.SIG_DFL)
            # Dies with the guardian if the guardian itself is killed outright.
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != ME:
                os._exit(1)
            if limit:  # soft: the programs it starts may lift it (programlimits.py)
                hard = resource.getrlimit(resource.RLIMIT_AS)[1]
                soft = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
                resource.setrlimit(resource.RLIMIT_AS, (soft, hard))

        try:
            process = subprocess.Popen(
                child["args"],
                cwd=child["cwd"],
                env=child["env"],
                stdin=child.get("stdin", subprocess.DEVNULL),
                stdout=child["stdout"],
                stderr=child["stderr"],
                start_new_session=True,
                preexec_fn=in_child,
            )
        except (OSError, subprocess.SubprocessError) as error:
            report(f"error cannot start {child['name']}: {error}")
            report(f"exit {child['name']} 127")
            return
        finally:
            for fd in (child["stdout"], child["stderr"], child.get("stdin")):
                if fd is not None:
                    os.close(fd)  # the child holds them now
        process.returncode = 0  # reaped below, not by subprocess
        self.children[process.pid] = child["name"]
        self.sessions[child["name"]] = process.pid
        report(f"started {child['name']} {process.pid}")

    def reap(self):
        """Collect every ended child (orphans of the lesson included); report ours."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            name = self.children.pop(pid, None)
            if name is not None:
                report(f"exit {name} {os.waitstatus_to_exitcode(status)}")

    def descendants(self, full=True):
        """[(pid, name)] of the live processes below this one, each with the name of the
        child it descends from; None for an orphan first seen after its parent was gone
        (started and left within one POLL).

        Unless `full`, the processes found not to be descendants at the last full look are
        not looked at again: a process never becomes a descendant, only its pid could be
        taken by one (seen at the next full look). On a desktop with 500 processes, that
        saves reading 500 files 10 times a second.
        """
        table = processes(skip=frozenset() if full else self.foreign)
        if full:
            self.foreign = set(table)
        below: dict[int, list[int]] = {}
        for pid, (parent, _, _) in table.items():
            below.setdefault(parent, []).append(pid)
        found, lineage = [], {}
        todo = [(pid, None) for pid in below.get(ME, [])]
        while todo:
            pid, owner = todo.pop()
            _, started, zombie = table[pid]
            owner = owner or self.children.get(pid) or self.lineage.get((pid, started))
            if owner:
                lineage[(pid, started)] = owner
            if not zombie:  # a zombie holds no memory and cannot be killed again
                found.append((pid, owner))
            todo.extend((child, owner) for child in below.get(pid, []))
            self.foreign.discard(pid)
        self.lineage = lineage
        return found

    def kill(self, name):
        """Kill the session of child `name` and every process known to descend from it."""
        self.kill_session(name)
        for pid, owner in self.descendants():
            if owner == name:
                signal_quietly(pid)

    def kill_session(self, name):
        pid = self.sessions.get(name)
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)

    def kill_all(self, seconds=10.0):
        """Kill every descendant, again and again until none is left: orphans of killed
        processes become this one's children as they die."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for name in list(self.sessions):
                self.kill_session(name)
            alive = self.descendants()
            for pid, _ in alive:
                signal_quietly(pid)
            self.reap()
            if not alive and not self.children:
                return
            time.sleep(0.01)

    def check_memory(self):
        """Each child with all its descendants may use `memory_limit` bytes (resident).
        An orphan whose origin is unknown counts against each of them."""
        if self.memory_reported or not self.memory_limit:
            return
        used = dict.fromkeys(self.sessions, 0)
        self.looks += 1
        for pid, owner in self.descendants(full=self.looks % 10 == 1):
            size = resident_bytes(pid)
            for name in used:
                if owner in (name, None):
                    used[name] += size
        over = [(size, name) for name, size in used.items() if size > self.memory_limit]
        if over:
            self.memory_reported = True
            size, name = max(over)
            report(f"memory {size} {name}")  # before the exits it causes
            self.kill_all()

    def watch(self, pending):
        """Until the build says `end` or is gone: report exits, obey commands, mind memory."""
        wakeup_read, wakeup_write = os.pipe()
        os.set_blocking(wakeup_write, False)
        os.set_blocking(wakeup_read, False)
        signal.set_wakeup_fd(wakeup_write)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        terminated = []
        signal.signal(signal.SIGTERM, lambda signum, frame: terminated.append(signum))
        next_look = time.monotonic()
        self.reap()  # children that ended before SIGCHLD was handled
        ready: list[int] = []
        while True:
            if 0 in ready:
                data = os.read(0, 4096)
                if not data:  # the build is gone
                    break
                pending += data
            *lines, pending = pending.split(b"\n")
            if self.obey(lines):
                return
            if terminated:  # the machine is going down
                break
            if time.monotonic() >= next_look:
                self.check_memory()
                next_look = time.monotonic() + POLL
            ready, _, _ = select.select(
                [0, wakeup_read], [], [], max(0.0, next_look - time.monotonic())
            )
            if wakeup_read in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(wakeup_read, 4096)
            self.reap()
        self.kill_all()
        shutil.rmtree(self.folder, ignore_errors=True)

    def obey(self, lines):
        """Carry out the build's commands; True once told to end."""
        for line in lines:
            command, _, argument = line.decode("utf-8", "replace").partition(" ")
            if command == "kill":
                self.kill(argument)
            elif command == "end":
                self.kill_all()
                return True
        return False


def main():
    # Only the build's end of file or its `end` stops this process (SIGTERM too, cleaning
    # up): not the terminal's hangup or Ctrl-C, which would leave the lesson's processes.
    for name in STOPPING:
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    data = b""
    while b"\n" not in data:
        more = os.read(0, 1 << 16)
        if not more:
            return
        data += more
    line, _, pending = data.partition(b"\n")
    guardian = Guardian(json.loads(line))
    guardian.watch(pending)


if __name__ == "__main__":
    try:
        main()
    except BaseException as error:  # say why, rather than vanish without a word
        report(f"error guardian failed: {type(error).__name__}: {error}")
        raise
