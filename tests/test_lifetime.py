"""Lesson processes die with the build (issue #15): whatever ends it, SIGKILL included, ends
the runner, main.py and everything they started, in new sessions too; the memory limit
holds for a lesson's processes together; temporary folders do not pile up."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, RecordingProgress, authoring_example, no_traceback, path_expression
from coursesite.errors import BuildErrors
from coursesite.execution import lessonprocess
from coursesite.pipeline import build
from test_hostile_code import still_running


def escaping(marker: Path, then: str = "") -> str:
    """The example lesson with a step that leaves two sleepers in sessions of their own (one
    by Popen, one by a double fork and setsid) and writes a line to `marker`: its own pid and
    theirs. Then `then`."""
    code = (
        "import os, subprocess, time\n"
        "sleeper = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        "read, write = os.pipe()\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        os.write(write, str(os.getpid()).encode())\n"
        "        time.sleep(300)\n"
        "    os._exit(0)\n"
        "os.close(write)\n"
        "forked = os.read(read, 100).decode()\n"
        f"open({path_expression(marker)}, 'a')"
        ".write(f'{os.getpid()} {sleeper.pid} {forked}\\n')\n" + then
    )
    return authoring_example().replace(
        'print("PASS: count-batches")', code + '\nprint("PASS: count-batches")'
    )


def lesson_pids(marker: Path) -> list[int]:
    return [int(pid) for pid in marker.read_text().split()] if marker.exists() else []


def wait_for(condition, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    return condition()


def lesson_folders(temp: Path) -> list[Path]:
    return sorted(temp.glob("coursesite-*/lesson-*"))


@pytest.mark.parametrize("end", [signal.SIGKILL, signal.SIGHUP], ids=["SIGKILL", "SIGHUP"])
def test_a_build_killed_outright_takes_every_lesson_process_and_folder_with_it(
    course_folder, tmp_path, end
):
    marker, temp = tmp_path / "pids", tmp_path / "tmp"
    temp.mkdir()
    course_folder.write(escaping(marker, "time.sleep(120)"))
    environment = dict(os.environ, TMPDIR=str(temp))
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "build.py"), "-q"],
        cwd=course_folder.root,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # A build in a terminal: a test run started under nohup would pass its ignored
        # SIGHUP on, and the build would never hear the terminal close.
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL),
    )
    try:
        # The runner and main.py each write a line: their pid and their sleepers'.
        assert wait_for(lambda: len(lesson_pids(marker)) == 6), "the lesson never started"
        pids = lesson_pids(marker)
        assert still_running(pids, grace=0) == pids and lesson_folders(temp)
        process.send_signal(end)  # SIGHUP: the terminal closed; the build has no handler
        process.wait(timeout=30)
        assert still_running(pids, grace=10) == []
        assert wait_for(lambda: not lesson_folders(temp), 10), lesson_folders(temp)
    finally:
        for pid in lesson_pids(marker):  # so that a failure leaves nothing running
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, 9)
        if process.poll() is None:
            process.kill()
    # The next build removes the folder of the build that was killed (now empty), and
    # those of earlier builds that are gone, whatever they hold; a live build's it keeps.
    namespace = "".join(filter(str.isdigit, os.readlink("/proc/self/ns/pid")))
    orphan = temp / f"coursesite-{namespace}-999999999-1" / "lesson-gone-x"
    orphan.mkdir(parents=True)
    (orphan / "data.bin").write_bytes(b"x" * 1000)
    with open("/proc/self/stat") as handle:
        started = handle.read().rsplit(")", 1)[1].split()[19]
    alive = temp / f"coursesite-{namespace}-{os.getpid()}-{started}"
    elsewhere = temp / "coursesite-1-999999999-1"  # another container's, sharing the folder
    for folder in (alive, elsewhere):
        folder.mkdir()
    course_folder.write(authoring_example())
    result = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "-q"],
        cwd=course_folder.root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    # The output folder's lock (publish.lock) stays; lesson folders are what matters here.
    assert sorted(p for p in temp.iterdir() if p.name != "coursesite-locks") == sorted(
        [alive, elsewhere]
    )


def test_a_child_in_a_new_session_does_not_outlive_a_normal_build(course_folder, tmp_path):
    marker = tmp_path / "pids"
    course_folder.write(escaping(marker))
    build(course_folder.options(), RecordingProgress())
    pids = lesson_pids(marker)
    assert len(pids) == 6  # the runner, main.py, and each one's two sleepers
    assert still_running(pids) == []


def test_a_lesson_over_its_memory_limit_in_all_its_processes_together_is_stopped(
    course_folder, tmp_path
):
    # Two processes of 250 MB each: each is under the 400 MB a process may reserve, together
    # they are over the 400 MB the lesson may use.
    marker = tmp_path / "pids"
    hoard = "b'x' * 250_000_000"
    course_folder.write(
        authoring_example().replace(
            'print("PASS: count-batches")',
            "import os, subprocess, sys, time\n"
            f"child = subprocess.Popen([sys.executable, '-c', \"import time; x = {hoard}; "
            'time.sleep(60)"])\n'
            f"open({str(marker)!r}, 'a').write(f'{{os.getpid()}} {{child.pid}}\\n')\n"
            f"hoard = {hoard}\ntime.sleep(60)\n"
            'print("PASS: count-batches")',
        ),
        timeout=60,
    )
    limit_memory(course_folder, 400)
    started = time.monotonic()
    with pytest.raises(BuildErrors) as caught:
        build(course_folder.options(), RecordingProgress())
    assert time.monotonic() - started < 50  # stopped, not timed out
    [error] = caught.value.errors
    assert error.message.startswith(
        "the lesson used more than 400 MB (all its processes together: "
    )
    assert "settings.memory_limit_mb" in error.hint
    assert still_running([int(pid) for pid in marker.read_text().split()]) == []


def test_address_space_a_lesson_reserves_but_does_not_use_is_not_its_memory(course_folder):
    # 2 GB reserved and never touched, as JAX's CPU client does, under a 400 MB limit.
    course_folder.write(
        authoring_example().replace(
            'print("PASS: count-batches")',
            "import mmap\nreserved = mmap.mmap(-1, 2 * 1024**3)\n"
            'print("reserved", len(reserved))\nprint("PASS: count-batches")',
        )
    )
    limit_memory(course_folder, 400)
    build(course_folder.options(), RecordingProgress())
    page = course_folder.root / "site" / "basics" / "count-batches" / "index.html"
    assert "reserved 2147483648" in page.read_text()


def test_a_program_the_lesson_starts_is_not_held_to_its_address_space_backstop(course_folder):
    """Chrome (Plotly's static export) reserves about 100 GB and closes at once under a
    smaller limit: a program the lesson starts goes without the backstop, a Python one too
    (kaleido starts Chrome through a Python wrapper); the lesson's own Python keeps it."""
    probe = "import subprocess; subprocess.run(['sh', '-c', 'echo wrapped $(ulimit -v)'])"
    course_folder.write(
        authoring_example().replace(
            'print("PASS: count-batches")',
            "import resource, subprocess, sys\n"
            "subprocess.run(['sh', '-c', 'echo program $(ulimit -v)'])\n"
            f"subprocess.run([sys.executable, '-c', {probe!r}])\n"
            "print('lesson', resource.getrlimit(resource.RLIMIT_AS)[0])\n"
            'print("PASS: count-batches")',
        )
    )
    limit_memory(course_folder, 400)
    build(course_folder.options(), RecordingProgress())
    page = (course_folder.root / "site" / "basics" / "count-batches" / "index.html").read_text()
    backstop = str(lessonprocess.address_space_backstop(400 * 1024 * 1024))
    assert "program unlimited" in page
    assert "wrapped unlimited" in page and f"lesson {backstop}" in page


def limit_memory(course_folder, megabytes: int) -> None:
    """The course's settings give each lesson `megabytes` of memory."""
    course_folder.manifest.write_text(
        course_folder.manifest.read_text().replace(
            "  timeout_seconds:", f"  memory_limit_mb: {megabytes}\n  timeout_seconds:"
        )
    )


def stopping_its_guardian(guardians: Path, then: str = "") -> str:
    """Lesson code that writes its guardian's pid (its parent's) to `guardians`, then stops
    it with SIGSTOP; then `then`."""
    return (
        "import signal\n"
        f"open({str(guardians)!r}, 'a').write(f'{{os.getppid()}}\\n')\n"
        "os.kill(os.getppid(), signal.SIGSTOP)\n" + then
    )


@contextlib.contextmanager
def build_stopping_its_guardian(course_folder, tmp_path, timeout: int, then: str = ""):
    """A real `build.py` of a lesson that leaves two sleepers and stops its guardian;
    yields the build, once the guardian is stopped. Kills what is left, whatever happens."""
    marker, guardians, temp = tmp_path / "pids", tmp_path / "guardians", tmp_path / "tmp"
    temp.mkdir()
    course_folder.write(escaping(marker, stopping_its_guardian(guardians, then)), timeout=timeout)
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "build.py"), "-q"],
        cwd=course_folder.root,
        env=dict(os.environ, TMPDIR=str(temp)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_for(guardians.exists, 120), "the lesson never started"
        yield process
        pids = lesson_pids(marker) + lesson_pids(guardians)
        assert len(pids) >= 4 and still_running(pids) == []
        assert not lesson_folders(temp)
    finally:
        for pid in lesson_pids(marker) + lesson_pids(guardians):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_lesson_that_stops_its_guardian_is_still_stopped_at_its_timeout(course_folder, tmp_path):
    """SIGSTOP leaves the guardian unable to report or kill: the build gives it a deadline,
    then kills it and everything the lesson started, and removes the lesson's folder."""
    with build_stopping_its_guardian(course_folder, tmp_path, timeout=10) as process:
        stopped = time.monotonic()
        _, stderr = process.communicate(timeout=120)
        assert time.monotonic() - stopped < 10 + 30  # the timeout, and a few seconds
        assert process.returncode == 1
        assert "lesson code ran longer than 10 s and was stopped" in stderr, stderr
        assert "stopped (SIGSTOP) its guardian" in stderr, stderr
        assert no_traceback(stderr)


def test_a_build_stopped_while_its_lesson_holds_its_guardian_stopped_ends_at_once(
    course_folder, tmp_path
):
    """SIGTERM ends the build within seconds, not at the end of a wait on the guardian."""
    with build_stopping_its_guardian(
        course_folder, tmp_path, timeout=120, then="time.sleep(120)"
    ) as process:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=40)
        assert process.returncode == 130 and "interrupted; site not changed" in stderr, stderr


def test_a_lesson_that_kills_its_guardian_leaves_no_process_behind(course_folder, tmp_path):
    """Killing the guardian ends the runner and main.py (their parent-death signal); what
    they started in sessions of their own is then the build's to kill, and to reap."""
    marker = tmp_path / "pids"
    course_folder.write(escaping(marker, "import signal\nos.kill(os.getppid(), signal.SIGKILL)"))
    # A child of the build's own, in a session of its own too, is not the lesson's.
    own = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        with pytest.raises(BuildErrors) as caught:
            build(course_folder.options(), RecordingProgress())
        assert own.poll() is None
    finally:
        own.kill()
        own.wait()
    [error] = caught.value.errors
    assert "its guardian, the parent process of lesson code, was killed" in error.message
    pids = lesson_pids(marker)
    assert len(pids) >= 3 and still_running(pids) == []
    # Not zombies either: the build, their subreaper once the guardian was gone, reaped them.
    assert wait_for(lambda: not [pid for pid in pids if Path(f"/proc/{pid}").exists()], 10)


def test_the_guardian_started_ahead_runs_the_first_lesson_and_ends_unused_otherwise(
    course_folder, monkeypatch
):
    """A build starts one guardian while it reads its lessons: the first lesson to run
    takes it (no second guardian starts), and a build that runs nothing ends it."""
    started = []
    start = lessonprocess._start_guardian

    def counted(write_ends):
        process = start(write_ends)
        started.append(process)
        return process

    monkeypatch.setattr(lessonprocess, "_start_guardian", counted)
    course_folder.write(authoring_example())
    result = build(course_folder.options(jobs=1))
    assert result.executed == ["count-batches"]
    assert len(started) == 1 and started[0].wait(timeout=10) == 0
    started.clear()
    course_folder.write(authoring_example().replace("Each bar is one", "Every bar is one"))
    result = build(course_folder.options(jobs=1))
    assert result.executed == []
    [spare] = started
    assert spare.wait(timeout=10) == 0  # it read the end of its input, with no job
    assert lessonprocess._SPARE == []


def test_a_course_that_sets_no_memory_limit_gives_each_lesson_its_share_of_the_machine(
    course_folder, monkeypatch
):
    """Unset, the limit is three quarters of the machine's memory in the share of its cores
    a lesson runs with: a tutorial that needs 6 GB runs on a 24 GB machine, and one that
    outgrows a small machine is stopped with the number it was held to."""
    from coursesite.execution import machineshares

    real_sysconf = os.sysconf

    def machine(gib: int):
        pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": gib * 1024**3 // 4096}
        monkeypatch.setattr(os, "sysconf", lambda name: pages.get(name) or real_sysconf(name))
        monkeypatch.setattr(os, "cpu_count", lambda: 2)

    machine(24)
    assert machineshares.memory_share(1) == 9216  # 24 GiB * 3/4, half the cores
    assert machineshares.memory_share(2) == 18432
    machine(1)
    assert machineshares.memory_share(1) == 1024  # never below
    course_folder.write(
        authoring_example().replace(
            'print("PASS: count-batches")',
            'hoard = bytearray(1500 * 1024**2)\nprint("PASS: count-batches")',
        )
    )
    with pytest.raises(BuildErrors) as caught:
        build(course_folder.options(jobs=1), RecordingProgress())
    [error] = caught.value.errors
    assert error.message.startswith("the lesson used more than 1024 MB"), error.message
