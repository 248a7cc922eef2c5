"""Output of lesson processes is capped in memory and never piles up on disk."""

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from conftest import ROOT, authoring_example, no_traceback

ENDLESS = 'while True:\n    print("x" * 1000)'


def lesson_with(code: str) -> str:
    """The example lesson with `code` appended to its second build step."""
    return authoring_example().replace(
        'print("PASS: count-batches")', code + '\nprint("PASS: count-batches")'
    )


def bytes_under(folder: Path) -> int:
    total = 0
    for base, _, names in os.walk(folder):
        for name in names:
            with contextlib.suppress(FileNotFoundError):  # removed meanwhile
                total += os.lstat(os.path.join(base, name)).st_size
    return total


def build_watching_temp(course_folder, tmp_path) -> tuple[subprocess.CompletedProcess, int]:
    """Build with the lessons' temporary folders in tmp_path; the most they ever held."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    most, done = [0], threading.Event()

    def watch() -> None:
        while not done.is_set():
            most[0] = max(most[0], bytes_under(temp))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        result = subprocess.run(
            [sys.executable, str(ROOT / "build.py"), "-q", "--jobs", "1"],
            cwd=course_folder.root,
            capture_output=True,
            text=True,
            timeout=120,
            env=dict(os.environ, TMPDIR=str(temp)),
        )
    finally:
        done.set()
        watcher.join()
    return result, most[0]


def test_a_step_printing_without_end_fills_neither_disk_nor_memory(course_folder, tmp_path):
    course_folder.write(lesson_with(ENDLESS), timeout=3)
    result, most = build_watching_temp(course_folder, tmp_path)
    assert result.returncode == 1, result.stderr
    assert "lesson code ran longer than 3 s and was stopped" in result.stderr
    assert most < 1_000_000, f"the lesson's temporary folder grew to {most} bytes"
    assert "python main.py printed more than" in result.stderr


def test_main_py_printing_more_than_the_steps_fails_naming_main_py(course_folder, tmp_path):
    # Only the build's working folder holds the runner's job file: there the steps print as
    # usual, while `python main.py` in a reader's folder prints without end.
    course_folder.write(
        lesson_with(
            f"import os\nif not os.path.exists('job.json'):\n"
            f"    {ENDLESS.replace(chr(10), chr(10) + '    ')}"
        ),
        timeout=60,
    )
    started = time.monotonic()
    result, most = build_watching_temp(course_folder, tmp_path)
    assert result.returncode == 1, result.stderr
    assert re.search(
        r"lesson\.md: the downloadable main\.py printed more than \d+ bytes, "
        "more than the build steps did, and was stopped",
        result.stderr,
    )
    assert "hint:" in result.stderr and no_traceback(result.stderr)
    assert time.monotonic() - started < 30, "main.py was not stopped when it passed the cap"
    assert most < 1_000_000


def test_a_capture_keeps_head_and_tail_and_does_not_wait_for_an_escaped_child():
    from coursesite.execution.capture import TAIL, OutputCapture

    code = (
        "import subprocess, sys\n"
        "child = subprocess.Popen(['sleep', '60'], start_new_session=True)\n"
        "sys.stderr.write(str(child.pid))\n"
        "sys.stdout.write('a' * 10_000_000 + 'END')\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    capture = OutputCapture(process, {"stdout": 1000, "stderr": 1000})
    process.wait(timeout=60)
    started = time.monotonic()
    stdout, stderr = capture.finish()  # the child still holds both pipes open
    try:
        assert time.monotonic() - started < 5
        assert stdout.startswith("a" * 1000) and stdout.endswith("a" * 100 + "END")
        assert f"\n[{10_000_003 - 1000 - TAIL} bytes not kept]\n" in stdout
        assert len(stdout) < 1000 + TAIL + 100
    finally:
        os.kill(int(stderr), 9)
