"""The warm preview of `build.py serve` (#28 item 8), run by hand:

    .venv/bin/python bench/warm_bench.py --baseline DIR [--reps 5]

DIR is a checkout of the generator without the warm preview (`git archive <rev> | tar -x
-C DIR`). Both serve a copy of one bench lesson whose full run takes several seconds (its
first step computes for about 3 s), each a real `build.py serve` subprocess, and take the
same edits alternately: a prose edit, an edit of the last step and one of the first. Each
is timed from the save until the page served shows the edit: the first page holding the
new output (a preview, when the warm run shows it) and the clean page (no preview banner).
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = "basics/slow-lesson/index.html"
MANIFEST = """\
course:
  title: Warm preview bench
  track: Bench
settings:
  record_packages: [numpy]
phases:
  - id: "01"
    slug: basics
    title: Basics
    lessons:
      - slug: slow-lesson
        source: content/lesson.md
"""
# What stands for a lesson's slow work (training, a simulation): about 3 s of one core.
SLOW_STEP = (
    "ids = np.arange(11)\n"
    "work = sum(i % 7 for i in range(90_000_000))\n"
    'print("first step, edit 0")\n'
)
LAST_STEP = 'print("PASS: count-batches")'


def bench_lesson() -> str:
    """docs/authoring.md's complete example, its first step made slow."""
    doc = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    match = re.search(r"## A complete lesson\s+````markdown\n(.*?)\n````", doc, re.S)
    assert match, "docs/authoring.md lost its complete example"
    return match.group(1).replace("ids = np.arange(11)\n", SLOW_STEP, 1) + "\n"


class Served:
    """One generator's `build.py serve` on its own copy of the bench course."""

    def __init__(self, generator: Path, folder: Path):
        self.folder, self.lesson = folder, folder / "content" / "lesson.md"
        self.lesson.parent.mkdir(parents=True)
        self.lesson.write_text(bench_lesson(), encoding="utf-8")
        (folder / "lessons.yaml").write_text(MANIFEST, encoding="utf-8")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.lines: queue.Queue[str] = queue.Queue()
        self.process = subprocess.Popen(
            [sys.executable, str(generator / "build.py"), "serve", "--port", str(self.port)],
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_for("serving ")
        time.sleep(1)  # the watcher starts right after serve says it serves

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for(self, text: str, timeout: float = 120) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if text in self.lines.get(timeout=0.1):
                    return True
            except queue.Empty:
                continue
        return False

    def page(self) -> str:
        url = f"http://127.0.0.1:{self.port}/{PAGE}"
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode()

    def edit(self, old: str, new: str, shown: str) -> tuple[float, float]:
        """Seconds from the save until the page shows `shown`, and until it does without
        a preview banner."""
        while not self.lines.empty():
            self.lines.get()
        text = self.lesson.read_text(encoding="utf-8")
        assert old in text, old
        started = time.perf_counter()
        self.lesson.write_text(text.replace(old, new, 1), encoding="utf-8")
        first = None
        while time.perf_counter() - started < 120:
            page = self.page()
            if shown in page:
                first = first or time.perf_counter() - started
                if "Preview:" not in page:
                    return first, time.perf_counter() - started
            time.sleep(0.01)
        raise SystemExit(f"{self.folder}: the page never showed {shown!r}")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=60)


def warm(served: Served, expected: bool) -> None:
    """Until the lesson's interpreter is warm again (after an edit it could not show)."""
    if expected and not served.wait_for("is warm", timeout=120):
        raise SystemExit("the lesson's interpreter never warmed up")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", required=True, help="a checkout without the warm preview")
    parser.add_argument("--reps", type=int, default=5)
    arguments = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="coursesite-warm-bench-"))
    generators = {"before": Path(arguments.baseline).resolve(), "after": ROOT}
    samples: dict[str, list[float]] = {}
    try:
        servers = {name: Served(path, work / name) for name, path in generators.items()}
        for name, served in servers.items():  # the first edit warms the lesson up
            served.edit("is a policy", "is a policy!", "is a policy!")
            warm(served, name == "after")
        for rep in range(1, arguments.reps + 1):
            for name, served in servers.items():
                words = ("Each bar is one batch", "Each bar is a batch")
                before, after = words if rep % 2 else reversed(words)
                prose = served.edit(before, after, after)
                last = served.edit(
                    LAST_STEP if rep == 1 else f'print("PASS: count-batches", {rep - 1})',
                    f'print("PASS: count-batches", {rep})',
                    f"PASS: count-batches {rep}",
                )
                first = served.edit(
                    f"first step, edit {rep - 1}", f"first step, edit {rep}", f"edit {rep}"
                )
                warm(served, name == "after")
                for row, (shown, clean) in (("prose", prose), ("last", last), ("first", first)):
                    samples.setdefault(f"{name} {row} shown", []).append(shown)
                    samples.setdefault(f"{name} {row} clean", []).append(clean)
        for served in servers.values():
            served.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nmedians of {arguments.reps}, {os.cpu_count()} cores")
    print(f"{'edit':<40} {'before':>8} {'after':>8} {'paired':>8}")
    for row, label in (
        ("prose", "prose edit"),
        ("last", "edit of the last step"),
        ("first", "edit of the first step"),
    ):
        for kind in ("shown", "clean"):
            pairs = zip(
                samples[f"before {row} {kind}"], samples[f"after {row} {kind}"], strict=True
            )
            # Each rep's two edits ran a few seconds apart: their difference is what the
            # load of a shared machine, which moves both, disturbs least.
            paired = statistics.median([after - before for before, after in pairs])
            before = statistics.median(samples[f"before {row} {kind}"])
            after = statistics.median(samples[f"after {row} {kind}"])
            print(
                f"{label + ', ' + ('new output shown' if kind == 'shown' else 'clean page'):<40}"
                f" {before:8.3f} {after:8.3f} {paired:+8.3f}"
            )
    print("\nevery sample:")
    for name, values in samples.items():
        print(f"  {name}: {' '.join(f'{v:.2f}' for v in values)}")


if __name__ == "__main__":
    main()
