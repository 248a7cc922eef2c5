"""What a step's child processes and C code write straight to file descriptors 1 and 2
(subprocess, os.system, os.write, a multiprocessing worker's print) shows under that step,
in order with what its Python code printed, as `python main.py` prints it: through the
real command line, whose main.py check compares the two."""

from __future__ import annotations

import re
import sys

import pytest
from bs4 import BeautifulSoup

from conftest import CourseFolder, authoring_example, replace_block

STEPS = """:::{step} 2. Batch and check
```python
batches = [ids[i:i + 4] for i in range(0, len(ids), 4)]
sizes = [len(b) for b in batches]
print("PASS: count-batches")
```
:::

:::{step} 3. Ask a program
```python
import subprocess
import sys
print("before echo")
subprocess.run(["echo", "from echo"], check=True)
subprocess.run(["echo", "handed sys.stdout"], stdout=sys.stdout, check=True)
print("after echo")
```
:::

:::{step} 4. Ask the shell
```python
import os
print("before system")
os.system("echo from the shell; echo shell complains >&2")
print("after system")
```
:::

:::{step} 5. Write to the descriptors
```python
print("one")
os.write(1, b"two\\n")
print("err one", file=sys.stderr)
os.write(2, b"err two\\n")
print("three")
os.write(1, b"four\\n")
print("err three", file=sys.stderr)
```
:::

:::{step} 6. Ask a worker
```python
import multiprocessing

def shout():
    print("from a worker")

worker = multiprocessing.Process(target=shout)
print("starting")
worker.start()
worker.join()
print("joined")
```
:::

:::{step} 7. Count
```python
print("total", sum(sizes))
```
:::

:::{step} 8. Average nothing
```python
import numpy as np

print(np.mean([]))
```
:::

:::{step} 9. Draw a progress bar
```python
import time

start, ticks = time.perf_counter(), 0
while time.perf_counter() - start < 0.05:  # as many redraws as the machine's speed allows
    ticks += 1
    print(f"\\r{ticks} ticks [{time.perf_counter() - start:.4f}s]", end="", flush=True)
print("\\rdone" + " " * 30)
os.write(2, b"\\r  0%|  | 0/2\\r 50%|# | 1/2\\r100%|##| 2/2\\nnext\\r\\n")
```
:::
"""


def lesson_text() -> str:
    return replace_block(authoring_example(), ":::{step} 2.", STEPS)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The real build of the lesson: its result and each step's section of the page."""
    folder = CourseFolder(tmp_path_factory.mktemp("fd"))
    folder.write(lesson_text())
    result = folder.cli("-q")
    page_path = folder.root / "site" / "basics" / "count-batches" / "index.html"
    page = None
    if page_path.is_file():
        page = BeautifulSoup(page_path.read_text(encoding="utf-8"), "html.parser")
    return result, page


def shown(built, step: int, stream: str = "stdout") -> str:
    result, page = built
    assert result.returncode == 0, result.stderr  # main.py printed what the steps did
    section = page.select_one(f"#step-{step}")
    return "".join(pre.get_text() for pre in section.select(f".output-{stream} pre"))


def test_a_program_run_with_subprocess_shows_under_its_step_in_order(built):
    assert shown(built, 3) == "before echo\nfrom echo\nhanded sys.stdout\nafter echo\n"
    assert shown(built, 2) == "PASS: count-batches\n"
    assert "echo" not in shown(built, 4)


def test_os_system_output_and_its_stderr_show_under_its_step(built):
    assert shown(built, 4) == "before system\nfrom the shell\nafter system\n"
    assert shown(built, 4, "stderr") == "shell complains\n"
    assert "shell" not in shown(built, 5) + shown(built, 5, "stderr")


def test_writes_to_fd_1_and_2_interleave_with_prints_in_order(built):
    assert shown(built, 5) == "one\ntwo\nthree\nfour\n"
    assert shown(built, 5, "stderr") == "err one\nerr two\nerr three\n"
    assert shown(built, 6).startswith("starting\n")


def test_a_multiprocessing_workers_print_shows_under_its_step(built):
    assert shown(built, 6) == "starting\nfrom a worker\njoined\n"
    assert shown(built, 7) == "total 11\n"


def test_a_librarys_warning_names_its_file_within_the_installation_not_the_machines_path(
    built,
):
    """NumPy's warning names its file: by the path the site was built with, it would put
    the builder's folders on the page and differ on every machine."""
    import sysconfig

    warned = shown(built, 8, "stderr")
    assert re.match(r"numpy/[\w/]+\.py:\d+: RuntimeWarning: Mean of empty slice", warned)
    assert sysconfig.get_path("purelib") not in warned and sys.prefix not in warned


def test_a_progress_bar_shows_its_last_state_as_a_notebook_shows_it(built):
    """A carriage return goes back to the line's start: the page shows what the reader's
    terminal ends with, not every redraw, and main.py, which redraws another number of
    times, still prints what the steps did (the build's check passed: see shown())."""
    assert shown(built, 9).rstrip() == "done"
    assert shown(built, 9, "stderr") == "100%|##| 2/2\nnext\n"


def test_a_line_redrawn_without_end_keeps_to_the_output_cap():
    from coursesite.execution.fdcapture import CappedOutput

    output = CappedOutput(50)
    output.write("first line\n")
    for done in range(100_000):
        output.write(f"\r{done}/99999")
    output.write("\n")
    assert output.getvalue() == "first line\n99999/99999\n"
    endless = CappedOutput(10)
    endless.write("12345\r")
    endless.write("x" * 40)
    assert endless.getvalue() == (
        "x" * 10 + "\n[output truncated: 30 more characters were not recorded]\n"
    )


def test_a_child_printing_past_the_output_limit_fails_naming_its_step(tmp_path):
    """The cap on a step's output holds for what its children write too."""
    folder = CourseFolder(tmp_path)
    many = 'import os\nos.system("yes | head -n 150000")'
    folder.write(authoring_example().replace('print("PASS: count-batches")', many))
    result = folder.cli("-q")
    assert result.returncode == 1
    assert "step 2 printed more than 200,000 characters" in result.stderr, result.stderr


def test_the_cache_key_covers_every_module_the_runner_loads():
    """A change to how a block's output is kept runs every lesson again."""
    from coursesite.execution.execute import RUNNER
    from coursesite.execution.executionkey import RUNNER_FILES

    companions = re.findall(r'_companion\("(\w+)"\)', RUNNER.read_text(encoding="utf-8"))
    assert "fdcapture" in companions
    expected = {"runner.py", *(f"{name}.py" for name in companions)}
    # The key may cover more (main.py's import guard, which a record's install line
    # depends on), never less.
    assert expected <= {path.name for path in RUNNER_FILES}
