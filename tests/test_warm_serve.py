"""The warm preview through a real `build.py serve`: an edit of a lesson's code shows at
once, marked as a preview, and the clean full run replaces it; nothing of the warm run is
saved anywhere."""

import contextlib
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT, authoring_example

PAGE = "basics/count-batches/index.html"
STEP_1 = "ids = np.arange(11)\n"
# Step 1 takes a while, as a real lesson's work does, and draws a number no other run of
# it draws: an output holding it shows which run made it.
SLOW_STEP_1 = "ids = np.arange(11)\nimport random, time\ntoken = random.random()\ntime.sleep(3)\n"
EXPERIMENT = 'print("Omitted:", np.setdiff1d(ids, kept).tolist())'


class Serving:
    def __init__(self, folder):
        self.folder = folder
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "build.py"), "serve", "--port", str(self.port)],
            cwd=folder.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            # A serve that hangs is aborted by `stopped`: the fault handler then prints
            # every thread's stack.
            env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"},
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for(self, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"serve never said {text!r}; it said:\n{''.join(self.seen)}")

    def page(self) -> str:
        url = f"http://127.0.0.1:{self.port}/{PAGE}"
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode()

    def page_when(self, holds, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            page = self.page()
            if holds(page):
                return page
            time.sleep(0.05)
        raise AssertionError(
            f"the page never changed as expected; serve said:\n{''.join(self.seen)}"
        )

    def edit(self, old: str, new: str) -> None:
        path = self.folder.lesson_path
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))


@pytest.fixture
def serving(course_folder):
    course_folder.write(authoring_example().replace(STEP_1, SLOW_STEP_1, 1))
    serving = Serving(course_folder)
    try:
        warmed_up(serving)
        yield serving
    finally:
        stopped(serving)


def stopped(serving: Serving) -> None:
    """Ctrl-C stops serve; if it does not within a minute, what it said, its threads'
    stacks and what was still running under it are the failure's evidence."""
    serving.process.send_signal(signal.SIGINT)
    try:
        serving.process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        tree = subprocess.run(
            ["ps", "-o", "pid,ppid,etime,args", "--ppid", str(serving.process.pid)],
            capture_output=True,
            text=True,
        ).stdout
        serving.process.send_signal(signal.SIGABRT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            serving.process.wait(timeout=10)
        serving.process.kill()
        time.sleep(1)  # the reading thread takes the stacks in
        while not serving.lines.empty():
            serving.seen.append(serving.lines.get())
        said = "".join(serving.seen)
        stuck = f"serve did not stop on Ctrl-C; it said:\n{said}\nits children:\n{tree}"
        raise AssertionError(stuck) from None


def warmed_up(serving):
    serving.wait_for("serving ")
    # The first edit of the lesson warms its interpreter up. The watcher starts right
    # after serve says it serves: until it sees an edit, the edit is made again.
    for attempt in range(20):
        serving.edit("is a policy", f"is a policy{'!' * (attempt + 1)}")
        try:
            serving.wait_for("changed: lesson.md", timeout=1)
            break
        except AssertionError:
            continue
    serving.wait_for("is warm")


def files_holding(folder: Path, text: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def test_a_code_edit_shows_warm_at_once_then_the_clean_run_replaces_it(serving):
    serving.edit(EXPERIMENT, EXPERIMENT.replace(".tolist())", ".tolist(), token)"))
    preview = serving.page_when(lambda page: "Preview:" in page)
    assert "Experiment &#39;Drop the remainder&#39; ran again in the warm interpreter" in preview
    warm_token = preview.split("Omitted: [8, 9, 10] ", 1)[1].split("\n", 1)[0]
    float(warm_token)  # the experiment's new output, with the warm namespace's token
    clean = serving.page_when(lambda page: "Preview:" not in page)
    assert "Omitted: [8, 9, 10] " in clean and warm_token not in clean  # a fresh run's token
    root = serving.folder.root
    for place in ("records", ".cache", "site"):
        assert files_holding(root / place, warm_token) == [], place


def test_an_edit_the_analysis_cannot_follow_is_left_to_the_full_run(serving):
    serving.edit(EXPERIMENT, EXPERIMENT + "\nexec('print(1)')")
    line = serving.wait_for("preview: count-batches")
    assert "experiment 'Drop the remainder' cannot be followed: it uses exec()" in line
    assert "the full run shows the edit" in line
    clean = serving.page_when(lambda page: "Omitted: [8, 9, 10]\n1" in page)
    assert "Preview:" not in clean


def test_an_edit_whose_warm_run_would_take_most_of_the_full_runs_time_is_left_to_it(serving):
    serving.edit("time.sleep(3)", "time.sleep(3.1)")
    line = serving.wait_for("preview: count-batches")
    assert "the blocks to run again took 3." in line and "the full run shows the edit" in line
    serving.wait_for("executed 01.01 count-batches")
    assert "Preview:" not in serving.page()
