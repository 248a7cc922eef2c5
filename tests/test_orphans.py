"""The build's side of a lost guardian (orphans.py), on real processes: what a killed
guardian's descendants leave become the build's children, and only those are ended."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from coursesite.execution import orphans
from coursesite.execution.lessonprocess import _start_time

# A stand-in for a guardian: it starts a grandchild in a session of its own (setsid), says
# its pid, and waits to be killed.
GUARDIAN = (
    "import os, subprocess, sys, time\n"
    "child = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
    "print(child.pid, flush=True)\n"
    "time.sleep(300)\n"
)


def test_only_the_orphans_of_a_lost_guardian_are_killed_and_reaped():
    guardian = orphans.start_own(
        lambda: subprocess.Popen(
            [sys.executable, "-c", GUARDIAN], stdout=subprocess.PIPE, start_new_session=True
        )
    )
    # The build's own children, in its session, started after the guardian: not orphans.
    own = subprocess.Popen(["sleep", "300"])
    grandchild = 0
    try:
        assert guardian.stdout is not None
        grandchild = int(guardian.stdout.readline())
        started = _start_time(guardian.pid)
        assert started
        guardian.kill()
        guardian.wait()  # its grandchild is now this process's child
        orphans.end_orphans(started)
        assert not Path(f"/proc/{grandchild}").exists()  # killed, and reaped
        assert own.poll() is None
    finally:
        orphans.release_own(guardian.pid)
        if grandchild:  # when the test fails, it must not leave it running
            with contextlib.suppress(ProcessLookupError):
                os.kill(grandchild, signal.SIGKILL)
        own.kill()
        own.wait()
        if guardian.stdout:
            guardian.stdout.close()
