"""Running lesson code, through the real build: what the committed record holds, and how
lesson code fails."""

import shutil
import tempfile
import time
import uuid
from pathlib import Path

from conftest import (
    ROOT,
    RecordingProgress,
    authoring_example,
    build_errors,
    build_lesson,
    line_of,
    replace_block,
)
from coursesite.errors import BuildError
from coursesite.execution.execute import prepare_job, run_job
from coursesite.execution.hardware import unseen_hardware
from coursesite.lesson.parse import parse_lesson
from coursesite.pipeline import build


def run(course_folder, text, timeout=120):
    return build_lesson(course_folder, text, timeout)


def failure(course_folder, text, timeout=120) -> BuildError:
    [error] = build_errors(course_folder, text, timeout)
    return error


def with_experiment(code: str, options: str = "") -> str:
    block = (
        ":::{experiment} Drop the remainder\n:predict: p\n:expected: e\n"
        + options
        + "\n```python\n"
        + code
        + "\n```\n\nTakeaway.\n:::\n"
    )
    return replace_block(authoring_example(), ":::{experiment}", block)


def test_each_block_keeps_its_own_output(course_folder):
    record = run(course_folder, authoring_example())
    assert record.blocks["step-1"].stdout == ""
    assert record.blocks["step-2"].stdout == "Batch sizes: [4, 4, 3]\nPASS: count-batches\n"
    assert record.blocks["drop-the-remainder"].stdout == "Omitted: [8, 9, 10]\n"
    assert record.output_of(["step-1", "step-2"]).endswith("PASS: count-batches\n")


def test_figure_data_comes_back_as_plain_values(course_folder):
    record = run(course_folder, authoring_example())
    figure = record.blocks["batch-sizes"].figure
    assert figure["series"][0]["values"] == [4, 4, 3]
    assert figure["kind"] == "bar"


def test_record_describes_the_environment(course_folder):
    record = run(course_folder, authoring_example())
    import numpy

    assert record.packages == {"numpy": numpy.__version__}
    assert record.python.count(".") == 2
    assert record.devices.startswith("JAX not used")  # numpy only: jax is not imported to ask
    assert record.hardware == "cpu"  # without JAX, no accelerator was used
    assert record.timestamp.endswith("+00:00")
    assert record.wall_seconds > 0


def test_devices_come_from_jax_when_the_lesson_uses_it(course_folder):
    text = with_experiment("import jax\nprint(jax.numpy.arange(3).sum())")
    record = run(course_folder, text)
    assert (record.devices, record.hardware) == ("1 CPU device", "cpu")


# This machine has no TPU: the lesson puts a stand-in for jax in sys.modules, which is what
# the runner asks after the lesson ran, as it would ask the real jax on a TPU host.
FAKE_TPU = (
    "import sys, types\n"
    "tpu = types.SimpleNamespace(platform='tpu')\n"
    "sys.modules['jax'] = types.SimpleNamespace(devices=lambda: [tpu] * 4)"
)


def test_hardware_is_the_kind_of_device_the_lessons_jax_saw(course_folder):
    record = run(course_folder, with_experiment(FAKE_TPU))
    assert (record.devices, record.hardware) == ("4 TPU devices", "tpu")


def declared(hardware: str, text: str) -> str:
    return text.replace("hardware: cpu", f"hardware: {hardware}", 1)


def test_a_tpu_lesson_whose_run_saw_no_tpu_is_an_error_at_its_hardware_line(course_folder):
    text = declared("tpu", with_experiment("import jax\nprint(jax.numpy.arange(3).sum())"))
    course = course_folder.write(text)
    lesson = parse_lesson(course.lessons[0])
    job = prepare_job(lesson, course.settings)
    error = unseen_hardware(job, run_job(job))
    assert error.message == "lesson declares hardware: tpu but its run saw no TPU (1 CPU device)"
    assert (error.path, error.line) == (course_folder.lesson_path, line_of(text, "hardware: tpu"))
    assert "declare hardware: cpu" in error.hint


def test_a_run_that_saw_the_declared_hardware_is_no_error(course_folder):
    for hardware, experiment in (("tpu", FAKE_TPU), ("cpu", "print('no JAX')")):
        course = course_folder.write(declared(hardware, with_experiment(experiment)))
        lesson = parse_lesson(course.lessons[0])
        job = prepare_job(lesson, course.settings)
        assert unseen_hardware(job, run_job(job)) is None, hardware


def test_stdout_and_stderr_are_separate(course_folder):
    text = with_experiment("import sys\nprint('out')\nprint('err', file=sys.stderr)")
    block = run(course_folder, text).blocks["drop-the-remainder"]
    assert (block.stdout, block.stderr) == ("out\n", "err\n")


def test_error_names_the_markdown_line_and_traceback_uses_file_lines(course_folder):
    code = "def helper(n):\n    return 10 // n\n\nhelper(0)"
    text = with_experiment(code)
    error = failure(course_folder, text)
    assert error.path.name == "lesson.md"
    assert error.line == line_of(text, "return 10 // n")
    assert "experiment 'Drop the remainder' failed: ZeroDivisionError" in error.message
    assert f'lesson.md", line {line_of(text, "helper(0)")}' in error.detail
    assert "return 10 // n" in error.detail  # the source line, read from the .md file
    assert "runner.py" not in error.detail


def test_declared_exception_is_recorded_not_fatal(course_folder):
    text = with_experiment("raise ValueError('seed changed')", ":raises: ValueError")
    block = run(course_folder, text).blocks["drop-the-remainder"]
    assert (block.raised.type, block.raised.message) == ("ValueError", "seed changed")


RAISING_STEP = """:::{step} 2. Batch, and see a bad size fail
:raises: ZeroDivisionError

```python
batches = [ids[i:i + 4] for i in range(0, len(ids), 4)]
sizes = [len(b) for b in batches]
print("Batch sizes:", sizes)
len(ids) / 0
print("never printed")
```
:::

:::{step} 3. Check
```python
assert sizes == [4, 4, 3]
print("PASS: count-batches")
```
:::
"""


def test_a_step_declared_to_raise_keeps_its_place_in_main_py(course_folder):
    """What it defined before raising is there for the next step, in the build and in the
    reader's main.py (which the build runs, and whose output must equal the steps')."""
    text = replace_block(authoring_example(), ":::{step} 2.", RAISING_STEP)
    record = run(course_folder, text)
    assert record.blocks["step-2"].raised.type == "ZeroDivisionError"
    assert record.blocks["step-2"].stdout == "Batch sizes: [4, 4, 3]\n"
    assert record.blocks["step-3"].stdout == "PASS: count-batches\n"
    main_py = next((course_folder.root / "site").rglob("count-batches/main.py")).read_text()
    assert "try:\n    batches = " in main_py and "except ZeroDivisionError:\n" in main_py
    compile(main_py, "main.py", "exec")


def test_a_step_raising_a_class_its_code_never_imports_keeps_main_py_running(course_folder):
    """A notebook stores the class alone (jax's TracerBoolConversionError): `except` with
    that bare name in main.py would raise NameError while handling it, and main.py, which
    the build runs, would stop there."""
    step = RAISING_STEP.replace(":raises: ZeroDivisionError", ":raises: JSONDecodeError")
    step = step.replace("len(ids) / 0", "import json\njson.loads('{')")
    record = run(course_folder, replace_block(authoring_example(), ":::{step} 2.", step))
    assert record.blocks["step-2"].raised.type == "JSONDecodeError"
    assert record.blocks["step-3"].stdout == "PASS: count-batches\n"
    main_py = next((course_folder.root / "site").rglob("count-batches/main.py")).read_text()
    assert "except JSONDecodeError" not in main_py


def test_a_step_raising_another_exception_than_declared_is_told_to_swap_the_name(
    course_folder,
):
    """Lineax's notebook stored XlaRuntimeError; the installed equinox raises its own
    EquinoxRuntimeError for the same failure: the hint names both, and what to write."""
    step = RAISING_STEP.replace(":raises: ZeroDivisionError", ":raises: KeyError")
    error = failure(course_folder, replace_block(authoring_example(), ":::{step} 2.", step))
    assert error.message.startswith("step 2 failed: ZeroDivisionError")
    assert error.hint.startswith(
        "the block declares ':raises: KeyError', and raised ZeroDivisionError instead"
    ), error.hint
    assert "write ':raises: ZeroDivisionError' in its place" in error.hint


FUTURE_STEPS = """:::{step} 2. Batch and check
```python
from __future__ import annotations

batches = [ids[i:i + 4] for i in range(0, len(ids), 4)]
```
:::

:::{step} 3. Annotate with a name defined later
```python
def sizes_of(parts: list[Batch]) -> list[int]:
    return [len(part) for part in parts]


sizes = sizes_of(batches)
assert sizes == [4, 4, 3]
print("PASS: count-batches")
```
:::
"""


def test_a_future_import_reaches_later_blocks_and_tops_main_py(course_folder):
    """As in a kernel: the annotation of step 3 is never evaluated (Batch is undefined)."""
    text = replace_block(authoring_example(), ":::{step} 2.", FUTURE_STEPS)
    record = run(course_folder, text)
    assert record.blocks["step-3"].stdout == "PASS: count-batches\n"
    main_py = next((course_folder.root / "site").rglob("count-batches/main.py")).read_text()
    assert main_py.startswith("from __future__ import annotations\n")
    assert main_py.count("from __future__") == 1


def test_a_logging_handler_made_in_one_step_writes_into_the_step_that_logs(course_folder):
    """basicConfig keeps the sys.stderr of the block that called it; a later block's
    message must still show under that later block."""
    text = authoring_example().replace(
        "ids = np.arange(11)\n",
        "import logging\n\nlogging.basicConfig(level=logging.INFO, format='%(message)s')\n"
        "ids = np.arange(11)\n",
    )
    text = text.replace(
        'print("PASS: count-batches")\n',
        'logging.info("batched %d records", len(ids))\nprint("PASS: count-batches")\n',
    )
    record = run(course_folder, text)
    assert record.blocks["step-1"].stderr == ""
    assert record.blocks["step-2"].stderr == "batched 11 records\n"


def test_declared_exception_matches_subclasses(course_folder):
    text = with_experiment("raise KeyError('k')", ":raises: LookupError")
    assert run(course_folder, text).blocks["drop-the-remainder"].raised.type == "KeyError"


def test_declared_exception_that_never_comes_fails(course_folder):
    error = failure(course_folder, with_experiment("x = 1", ":raises: ValueError"))
    assert "expected ValueError to be raised, but nothing was" in error.message


def test_a_different_exception_than_declared_fails(course_folder):
    error = failure(course_folder, with_experiment("raise TypeError('no')", ":raises: ValueError"))
    assert "TypeError: no" in error.message


def test_sys_exit_is_a_failure_not_a_silent_stop(course_folder):
    error = failure(course_folder, with_experiment("import sys\nsys.exit(0)"))
    assert "sys.exit(0)" in error.message


def test_figure_block_without_figure_variable_fails(course_folder):
    text = authoring_example().replace('figure = {"kind": "bar"', 'data = {"kind": "bar"')
    error = failure(course_folder, text)
    assert "did not assign a dictionary to `figure`" in error.message
    assert error.line == line_of(text, 'data = {"kind"')


def test_code_runs_in_a_temporary_folder_not_the_course(course_folder):
    text = with_experiment("import os\nopen('scratch.txt', 'w').write('x')\nprint(os.getcwd())")
    cwd = run(course_folder, text).blocks["drop-the-remainder"].stdout.strip()
    assert not (course_folder.root / "scratch.txt").exists()
    ran_in = Path(cwd)
    assert not ran_in.is_relative_to(course_folder.root) and not ran_in.is_relative_to(ROOT)
    assert not ran_in.exists()  # a temporary folder, removed afterwards


def test_endless_code_is_stopped_at_the_timeout(course_folder):
    error = failure(course_folder, with_experiment("while True:\n    pass"), timeout=2)
    assert "longer than 2 s" in error.message


def test_code_that_never_ends_is_stopped_near_its_timeout_not_long_after(course_folder):
    started = time.monotonic()
    error = failure(course_folder, with_experiment("import time\ntime.sleep(10**6)"), timeout=3)
    assert "longer than 3 s" in error.message
    # Starting the lesson's processes and stopping them takes moments, even on a busy
    # machine; a build that waited some multiple of the timeout (15 s for 5x) would not.
    assert time.monotonic() - started < 3 + 8


def test_a_crashed_interpreter_is_reported(course_folder):
    error = failure(course_folder, with_experiment("import os\nos._exit(3)"))
    assert "exit status 3" in error.message
    # At the experiment it was in, after main.py's three blocks (the figure, two steps).
    assert (
        "(exit status 3), in experiment 'Drop the remainder', after the 3 before it had run"
    ) in error.message, error


def test_main_py_runs_after_the_lesson_when_the_code_names_an_absolute_path(
    course_folder, tmp_path
):
    """Both runs make the same absolute folder, which must not exist yet: beside each other
    one would find the other's. Run one after the other, each finds it gone."""
    shared = tmp_path / "shared-by-both-runs"
    code = (
        "import os, shutil, time\n"
        f"os.makedirs({str(shared)!r})\n"
        "time.sleep(2)\n"
        f"shutil.rmtree({str(shared)!r})\n"
    )
    text = authoring_example().replace("ids = np.arange(11)\n", f"ids = np.arange(11)\n{code}", 1)
    record = run(course_folder, text)
    assert record.blocks  # built: neither run met the other's folder
    assert not shared.exists()


def test_what_the_lesson_makes_under_the_temporary_folder_is_gone_before_main_py_and_after(
    course_folder,
):
    """A tutorial saves a checkpoint to a fixed place under /tmp and fails if it is there
    (Orbax: "Destination ... already exists"): main.py, run after the lesson, must not find
    the lesson's, nor the next build the last one's; what existed before is left alone."""
    place = Path(tempfile.gettempdir()) / f"coursesite-scratch-{uuid.uuid4().hex}"
    kept = Path(tempfile.mkdtemp())  # the author's own data: there before the build
    (kept / "data.txt").write_text("mine")
    code = (
        "import os\n"
        f"os.makedirs({str(place / 'ckpt')!r})\n"
        f"print(open({str(kept / 'data.txt')!r}).read())\n"
    )
    text = authoring_example().replace("ids = np.arange(11)\n", f"ids = np.arange(11)\n{code}", 1)
    try:
        assert run(course_folder, text).blocks  # main.py did not meet the lesson's folder
        assert not place.exists()
        build(course_folder.options(force=True), RecordingProgress())  # nor the next build
        assert not place.exists()
        assert (kept / "data.txt").read_text() == "mine"
    finally:
        shutil.rmtree(place, ignore_errors=True)
        shutil.rmtree(kept, ignore_errors=True)


def test_a_step_whose_anchor_a_heading_took_shows_its_own_output(course_folder):
    """A heading "Step 2" in the prose takes the anchor `step-2` first, so step 2's section
    is `step-2-2`; its output is still the one the record keeps under `step-2` (a QuantEcon
    lecture failed to render with "'dict object' has no attribute 'step-2-2'")."""
    text = authoring_example().replace(
        "# Understand\n", "# Understand\n\n### Step 2\n\nA heading that takes the anchor.\n", 1
    )
    course_folder.write(text)
    build(course_folder.options(), RecordingProgress())
    site = course_folder.root / "site" / "basics" / "count-batches"
    page = (site / "index.html").read_text()
    step = page[page.index('<section class="step" id="step-2-2"') :]
    assert "Batch sizes: [4, 4, 3]" in step[: step.index("</section>")]
    markdown = (site / "lesson.md").read_text()
    assert "Batch sizes: [4, 4, 3]" in markdown


def test_lessons_that_name_the_same_scratch_place_run_one_after_the_other(course_folder):
    """Two imported tutorials save to the same /tmp place and fail if it is there: built two
    at a time, each still finds it absent, the other's run and its removal never between."""
    place = Path(tempfile.gettempdir()) / f"coursesite-shared-{uuid.uuid4().hex}"
    code = f"import os, time\nos.makedirs({str(place / 'ckpt')!r})\ntime.sleep(1)\n"
    first = authoring_example().replace("ids = np.arange(11)\n", f"ids = np.arange(11)\n{code}", 1)
    second = first.replace("title: Count what a batch holds", "title: Count it again", 1)
    course_folder.write(first, extra={"again": second})
    try:
        build(course_folder.options(jobs=2), RecordingProgress())  # raises if a lesson failed
        assert (course_folder.root / "records" / "again.yaml").exists()
        assert (course_folder.root / "records" / "count-batches.yaml").exists()
        assert not place.exists()
    finally:
        shutil.rmtree(place, ignore_errors=True)
