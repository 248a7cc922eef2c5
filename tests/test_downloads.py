"""What a reader takes home: every download is built from the run and checked against it."""

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import (
    RecordingProgress,
    authoring_example,
    build_lesson,
    line_of,
)
from coursesite.errors import BuildErrors
from coursesite.execution import mainpycheck
from coursesite.execution.executionrecord import mask_volatile
from coursesite.pipeline import build

LESSONS = [
    "design-an-input-pipeline",
    "load-batch-and-checkpoint-order-with-grain",
    "checkpoint-and-resume-a-training-step",
    "write-checkpoints-that-survive-a-crash",
    "shard-the-input-pipeline-across-processes",
    "run-a-preemption-drill",
]
VOLATILE = {
    "design-an-input-pipeline": ["^Preparation time:"],
    "load-batch-and-checkpoint-order-with-grain": [],
    "checkpoint-and-resume-a-training-step": [],
    "write-checkpoints-that-survive-a-crash": [],
    "shard-the-input-pipeline-across-processes": [],
    "run-a-preemption-drill": [],
}


@pytest.fixture
def site(real_site) -> Path:
    return real_site


def lesson_dir(site: Path, slug: str) -> Path:
    return site / "recovery" / slug


def recorded_stdout(folder: Path) -> dict[str, str]:
    blocks = json.loads((folder / "record.json").read_text())["blocks"]
    return {block_id: block["stdout"] for block_id, block in blocks.items()}


@pytest.mark.parametrize("slug", LESSONS)
def test_notebook_is_valid_and_a_real_kernel_reproduces_its_outputs(site, slug, tmp_path):
    notebook = nbformat.read(lesson_dir(site, slug) / "lesson.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata.kernelspec.name == "python3"
    recorded = [cell for cell in notebook.cells if cell.cell_type == "code"]
    stdout = [
        "".join(
            o.get("text", "")
            for o in cell.outputs
            if o.output_type == "stream" and o.name == "stdout"
        )
        for cell in recorded
    ]
    assert any("PASS: recovery-0" in text for text in stdout)
    assert any(
        o.output_type == "display_data" and "image/svg+xml" in o.data
        for cell in recorded
        for o in cell.outputs
    )
    fresh = nbformat.read(lesson_dir(site, slug) / "lesson.ipynb", as_version=4)
    NotebookClient(
        fresh, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    rerun = [
        "".join(
            o.get("text", "")
            for o in cell.outputs
            if o.output_type == "stream" and o.name == "stdout"
        )
        for cell in fresh.cells
        if cell.cell_type == "code"
    ]
    volatile = VOLATILE[slug]
    assert [mask_volatile(t, volatile) for t in rerun] == [
        mask_volatile(t, volatile) for t in stdout
    ]


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


@pytest.mark.parametrize("notebook", ["lesson.ipynb", "lesson-student.ipynb"])
def test_scaffolds_are_code_cells_to_fill_in_and_solutions_only_in_the_full_notebook(
    site, notebook
):
    folder = lesson_dir(site, LESSONS[0])
    cells = _cells(folder / notebook)
    scaffold = "last_y = ...  # TODO: the labels of the final batch"
    [at] = [i for i, c in enumerate(cells) if c["source"].startswith(scaffold)]
    assert cells[at]["cell_type"] == "code" and cells[at]["outputs"] == []
    assert "exercise-scaffold" in cells[at]["metadata"]["tags"]
    assert not any("```python" in c["source"] for c in cells if c["cell_type"] == "markdown")
    headings = [i for i, c in enumerate(cells) if "#### Reference solution" in c["source"]]
    if notebook == "lesson-student.ipynb":
        assert headings == []
        assert all(c["source"] != "" for c in cells)
        solutions = json.loads((folder / "record.json").read_text())["blocks"]
        assert "pad-the-short-batch-and-mask-the-mean" in solutions  # the full run had it
        assert not any("np.pad(" in c["source"] for c in cells if c["cell_type"] == "code")
    else:
        # The solution follows the scaffold and its check, after a rule and a heading.
        assert "exercise-check" in cells[at + 1]["metadata"]["tags"]
        assert headings[0] == at + 2 and cells[at + 2]["source"].startswith("---")
        assert cells[at + 3]["cell_type"] == "code" and "np.pad(" in cells[at + 3]["source"]


def test_full_script_reproduces_the_whole_recorded_run(site, tmp_path):
    folder = lesson_dir(site, LESSONS[1])
    (tmp_path / "full.py").write_bytes((folder / "full.py").read_bytes())
    run = subprocess.run(
        [sys.executable, "full.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    record = json.loads((folder / "record.json").read_text())
    expected = ""
    for block in record["blocks"].values():
        expected += block["stdout"]
        if block["raised"]:
            expected += f"{block['raised']['type']}: {block['raised']['message']}\n"
    assert run.stdout == expected


def test_zip_holds_every_download(site):
    folder = lesson_dir(site, LESSONS[1])
    with zipfile.ZipFile(folder / f"{LESSONS[1]}.zip") as archive:
        names = set(archive.namelist())
        assert archive.read("main.py") == (folder / "main.py").read_bytes()
    assert {
        "main.py",
        "full.py",
        "lesson.ipynb",
        "lesson.md",
        "evidence.md",
        "record.json",
    } <= names
    assert any(name.endswith(".svg") for name in names)
    assert any(name.endswith(".json") and name.startswith("figures/") for name in names)


def test_the_zip_carries_the_lessons_helper_module_and_its_main_py_runs_unzipped(
    course_folder, tmp_path
):
    text = authoring_example().replace(
        "ids = np.arange(11)\n", "from batching import make_ids\n\nids = make_ids(11)\n"
    )
    course_folder.write(text)
    helper = "import numpy as np\n\n\ndef make_ids(n):\n    return np.arange(n)\n"
    (course_folder.lesson_path.parent / "batching.py").write_text(helper)
    build(course_folder.options(), RecordingProgress())
    archive_path = next((course_folder.root / "site").rglob("count-batches.zip"))
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(archive_path) as archive:
        assert archive.read("batching.py").decode() == helper
        requirements = archive.read("requirements.txt").decode()
        readme = archive.read("README.md").decode()
        archive.extractall(unpacked)
    import numpy

    assert requirements == f"numpy=={numpy.__version__}\n"
    assert readme.startswith("# Count what a batch holds\n")
    assert "python -m pip install -r requirements.txt" in readme
    ran = subprocess.run(
        [sys.executable, "main.py"], cwd=unpacked, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.endswith("PASS: count-batches\n")


def test_a_package_of_the_lessons_own_travels_whole_to_the_run_and_the_zip(course_folder, tmp_path):
    """A folder with an `__init__.py` beside the lesson is its own package, as a module
    beside it is its own module: each of its modules is copied to the run and the zip
    (it had been taken for a package to install: "No module named 'batching'")."""
    text = authoring_example().replace(
        "ids = np.arange(11)\n", "from batching.ids import make_ids\n\nids = make_ids(11)\n"
    )
    course_folder.write(text)
    package = course_folder.lesson_path.parent / "batching"
    (package / "ids").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "ids" / "__init__.py").write_text("from batching.ids.make import make_ids\n")
    maker = "import numpy as np\n\n\ndef make_ids(n):\n    return np.arange(n)\n"
    (package / "ids" / "make.py").write_text(maker)
    (package / "notes.txt").write_text("not a module: stays behind")
    import numpy

    build(course_folder.options(), RecordingProgress())
    archive_path = next((course_folder.root / "site").rglob("count-batches.zip"))
    with zipfile.ZipFile(archive_path) as archive:
        assert archive.read("batching/ids/make.py").decode() == maker
        assert "batching/notes.txt" not in archive.namelist()
        assert archive.read("requirements.txt").decode().splitlines() == [
            f"numpy=={numpy.__version__}"  # the package is the lesson's, not one to install
        ]
        archive.extractall(tmp_path / "unpacked")
    ran = subprocess.run(
        [sys.executable, "main.py"],
        cwd=tmp_path / "unpacked",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr


def test_a_data_file_in_a_subfolder_is_read_where_it_is_in_the_run_and_the_zip(
    course_folder, tmp_path
):
    """`files: [data/sizes.txt]` is read as data/sizes.txt, as beside the lesson; a file
    outside the lesson's folder comes by its bare name, never outside the run folder."""
    text = authoring_example().replace(
        "revision: v0.1.0", "revision: v0.1.0\nfiles: [data/sizes.txt, ../shared.txt]"
    )
    text = text.replace(
        'print("Batch sizes:", sizes)',
        'print("Batch sizes:", sizes, open("data/sizes.txt").read(), open("shared.txt").read())',
    )
    course_folder.write(text)
    (course_folder.lesson_path.parent / "data").mkdir()
    (course_folder.lesson_path.parent / "data" / "sizes.txt").write_text("4 4 3")
    (course_folder.lesson_path.parent.parent / "shared.txt").write_text("from afar")
    build(course_folder.options(), RecordingProgress())
    page = next((course_folder.root / "site").rglob("count-batches/index.html")).read_text()
    assert "4 4 3 from afar" in page
    archive_path = next((course_folder.root / "site").rglob("count-batches.zip"))
    with zipfile.ZipFile(archive_path) as archive:
        assert archive.read("data/sizes.txt") == b"4 4 3"
        assert archive.read("shared.txt") == b"from afar"
        archive.extractall(tmp_path / "unpacked")
    ran = subprocess.run(
        [sys.executable, "main.py"], cwd=tmp_path / "unpacked", capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    assert "4 4 3 from afar" in ran.stdout


def test_figure_data_carries_its_provenance(site):
    [path] = (lesson_dir(site, LESSONS[1]) / "figures").glob("*.json")
    data = json.loads(path.read_text())
    assert data["lesson"] == LESSONS[1] and data["revision"] == "v0.1.0"
    assert data["data"]["kind"] == "bar" and len(data["code_sha256"]) == 64
    assert set(data["packages"]) == {"jax", "grain", "numpy"} and data["recorded_at"]


def test_lesson_text_has_values_and_outputs_and_evidence_has_places_to_write(site):
    folder = lesson_dir(site, LESSONS[1])
    text = (folder / "lesson.md").read_text()
    first_ids = recorded_stdout(folder)["step-3"].splitlines()[0].split(":", 1)[1].strip()
    assert f"the first batch was\n{first_ids}" in text or f"first batch was {first_ids}" in text
    assert "{value}" not in text and "](lesson:" not in text
    assert "PASS: recovery-02" in text
    evidence = (folder / "evidence.md").read_text()
    assert evidence.count("My prediction, written before running:") == 3
    assert "Audit both epochs" in evidence


def test_every_lesson_page_links_each_download(site):
    for slug in LESSONS:
        page = (lesson_dir(site, slug) / "index.html").read_text()
        for name in (
            "main.py",
            "full.py",
            "lesson.ipynb",
            "lesson-student.ipynb",
            "lesson.md",
            "evidence.md",
            "record.json",
            f"{slug}.zip",
        ):
            assert f'href="{name}"' in page, (slug, name)


def test_object_addresses_and_temporary_paths_differ_between_runs_by_rule(course_folder):
    """A function's repr holds its address, id() gives it in decimal, a temporary file has
    a random name, a process its own id: all differ in the reader's main.py run, and none
    is a difference."""
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)',
        'import os, tempfile\nprint("Batch sizes:", sizes, len)\n'
        'print(object(), tempfile.mkdtemp())\nprint(id(object()), "in pid", os.getpid())',
    )
    record = build_lesson(course_folder, text)
    stdout = record.blocks["step-2"].stdout
    assert " at 0x" in stdout and "/tmp" in stdout
    assert re.search(r"^\d{14,15} in pid \d+$", stdout, re.M)


def test_what_varies_by_rule_is_masked_and_nothing_else():
    lines = mask_volatile(
        "94883482769344 Ref\nthe pid 4121 ran\n<f at 0x7f3a00aa>\n"
        "12345678901234 rows\n1.94883482769344 loss\nstep 4121",
        [],
    )
    assert lines == [
        "… Ref",
        "the … ran",
        "<f at …>",
        "12345678901234 rows",
        "1.94883482769344 loss",
        "step 4121",
    ]


def test_a_progress_bars_line_is_compared_as_a_bar_and_its_times_and_rate_masked():
    """What a bar counts and when are the run's; a bar a step leaves open shares its line
    with the next step's in main.py's one stream (fastprogress's bars in BlackJAX's
    cyclical_sgld), where the steps' outputs keep them apart."""
    steps = (
        "\r  0%|  | 0/9 [00:00<?, ?it/s]\r100%|##| 9/9 [00:03<00:00,  2.61it/s]\n"
        " |####| 100.00% [500/500 01:02<00:00] |####| 100.00% [500/500 00:58<00:00]after\n"
        "1/3 [1:02:03<1:00:00, 1.52s/it]\nat 12:30, 3:4<5 and 10:15<x; 12 items/s\n"
        "rates | 3 | 40% [of 5]"
    )
    main = (
        "100%|##| 9/9 [00:02<00:00,  3.05it/s]\n"
        "█\r |####| 100.00% [500/500 01:01<00:00]█\r\r |####| 100.00% [500/500 00:59<00:00]"
        "after\n1/3 [1:01:03<1:00:01, 1.50s/it]\nat 12:30, 3:4<5 and 10:15<x; 12 items/s\n"
        "rates | 3 | 40% [of 5]"
    )
    assert (
        mask_volatile(steps, [])
        == mask_volatile(main, [])
        == [
            "<progress bar>",
            "<progress bar>",
            "1/3 […, …]",
            "at 12:30, 3:4<5 and 10:15<x; 12 items/s",
            "rates | 3 | 40% [of 5]",
        ]
    )


def test_a_measured_time_is_masked_and_a_count_or_a_rate_of_other_units_is_not():
    lines = mask_volatile(
        "Took 451 steps in 0.00638580322265625 seconds.\ntook 1.52s, 3.1 ms per step\n"
        "100%|##| 10/10 [00:01<00:00, 2.50s/it]\nwaited 1.5e-05 s\n"
        "Elapsed: 12 seconds\nspeed 2.5 m/s\nlr 0.01 for 5.0 epochs\nrms 0.25 s.d.\n"
        "TOC: Elapsed: 0:00:1.61\ntook 0:00:01.610000\nat 12:30:45, version 1:02:03.4.5\n"
        "13/13 - 0s - 4ms/step - loss: 0.25\n10/10 - 2s 150us/sample\n"
        "took 12ms; 5 ms rule; 3 ms/it\n"
        "ran 10s - 3 steps; 200 ms\n          'backend': 'module://_coursesite_lessonoutputs',",
        [],
    )
    assert lines == [
        "Took 451 steps in ….",
        "took …, … per step",
        "<progress bar>",
        "waited …",
        "Elapsed: 12 seconds",
        "speed 2.5 m/s",
        "lr 0.01 for 5.0 epochs",
        "rms 0.25 s.d.",
        "TOC: Elapsed: …",
        "took …",
        "at 12:30:45, version 1:02:03.4.5",
        "13/13 - … - … - loss: 0.25",
        "10/10 - 2s …",
        "took …; 5 ms rule; …",
        "ran 10s - 3 steps; 200 ms",
        "          'backend': '…',",
    ]


def test_a_main_py_that_behaves_differently_alone_fails_the_build(course_folder):
    # The build's working folder holds the runner's job file; a reader's folder does not.
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)',
        'import os\nprint("Batch sizes:", sizes, os.path.exists("job.json"))',
    )
    course_folder.write(text)
    with pytest.raises(BuildErrors) as caught:
        build(course_folder.options(), RecordingProgress())
    [error] = caught.value.errors
    assert "main.py prints something else than the build steps did" in error.message
    assert "+Batch sizes: [4, 4, 3] False" in error.detail
    # At the step whose output differs first, with the line that changed.
    assert error.message.endswith(
        ", first in the output of step 2, its line 1: 'Batch sizes: [4, 4, 3] True' became "
        "'Batch sizes: [4, 4, 3] False'"
    )
    assert error.line == line_of(text, "batches = [ids[i:i + 4]")  # the step's code
    assert "seed every random generator" in error.hint
    # The hint's pattern for the line, written into the front matter, is what it takes.
    suggested = error.hint.split("for the lines that differ: volatile: ")[1]
    assert suggested == "['^Batch sizes: \\[4, 4, 3\\] .*$']"
    course_folder.write(text.replace("---\n", f"---\nvolatile: {suggested}\n", 1))
    build(course_folder.options(), RecordingProgress())


def test_a_main_py_killed_by_a_signal_names_the_signal(course_folder):
    # Alone (no job file beside it), the code crashes as compiled code would.
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)',
        'import os, signal\nprint("Batch sizes:", sizes)\n'
        'if not os.path.exists("job.json"):\n    os.kill(os.getpid(), signal.SIGSEGV)',
    )
    course_folder.write(text)
    with pytest.raises(BuildErrors) as caught:
        build(course_folder.options(), RecordingProgress())
    [error] = caught.value.errors
    assert error.message == (
        "the downloadable main.py fails when run on its own (killed by SIGSEGV)"
    )


@pytest.mark.parametrize(
    "clock",
    [
        "__import__('datetime').date.today()",
        "__import__('datetime').datetime.now().strftime('%A %H')",
        "__import__('time').strftime('%Y')",
        "int(__import__('time').time() // 86400)",
    ],
)
def test_a_line_that_depends_on_the_date_or_clock_is_caught_at_once(course_folder, clock):
    """The reader-style main.py runs with its wall clock 400 days and 5 hours ahead, so a
    printed date or time differs now, not only when the build is rerun the next day."""
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)', f'print("Batch sizes:", sizes)\nprint("on", {clock})'
    )
    course_folder.write(text)
    with pytest.raises(BuildErrors) as caught:
        build(course_folder.options(), RecordingProgress())
    [error] = caught.value.errors
    assert ", first in the output of step 2, its line 2: 'on " in error.message
    assert error.line == line_of(text, "batches = [ids[i:i + 4]")
    assert "clock 400 days ahead" in error.hint


def test_the_shifted_clock_leaves_durations_and_other_dates_alone(course_folder):
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)',
        'print("Batch sizes:", sizes)\n'
        "import datetime, time\n"
        "start = time.perf_counter()\n"
        "time.sleep(0.05)\n"
        'print("slept", 0.04 < time.perf_counter() - start < 60)\n'
        "print(datetime.date(2020, 1, 2) + datetime.timedelta(days=1),"
        " isinstance(datetime.datetime.fromisoformat('2020-01-01'), datetime.date))\n"
        "print(datetime.date, datetime.datetime)",
    )
    record = build_lesson(course_folder, text)  # main.py, clock ahead, prints the same
    assert "slept True\n2020-01-03 True\n" in record.blocks["step-2"].stdout
    assert "<class 'datetime.date'> <class 'datetime.datetime'>" in record.blocks["step-2"].stdout


def test_a_lesson_using_pandas_dates_runs_as_main_py_under_the_shifted_clock(course_folder):
    """pandas' compiled Timestamp is a C subclass of datetime: loaded while the shifted
    clock's Python subclasses stand in the datetime module, main.py crashed (SIGSEGV)."""
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)',
        'print("Batch sizes:", sizes)\n'
        "import pandas as pd\n"
        "days = pd.Series(sizes, index=pd.date_range('2024-01-01', periods=len(sizes)))\n"
        "print(days.resample('2D').sum().to_dict())",
    )
    record = build_lesson(course_folder, text)
    assert "Timestamp('2024-01-01 00:00:00'): 8" in record.blocks["step-2"].stdout


def test_an_unseeded_random_number_is_named_at_its_step(course_folder):
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)',
        'print("Batch sizes:", sizes)\nprint("sample", np.random.default_rng().integers(1 << 60))',
    )
    course_folder.write(text)
    with pytest.raises(BuildErrors) as caught:
        build(course_folder.options(), RecordingProgress())
    [error] = caught.value.errors
    assert ", first in the output of step 2, its line 2: 'sample " in error.message
    assert "np.random.default_rng(0)" in error.hint


def test_lesson_md_names_only_the_packages_the_lesson_used(site):
    lines = {
        slug: next(
            line
            for line in (lesson_dir(site, slug) / "lesson.md").read_text().splitlines()
            if line.startswith("Recorded run:")
        )
        for slug in LESSONS
    }
    for slug, line in lines.items():
        assert ("JAX not used" in line) != (" · jax " in line), (slug, line)


def test_a_location_in_the_lesson_and_the_same_in_main_py_are_no_difference(course_folder):
    """A step compiled under the lesson's name prints `lesson.md:LINE`; main.py prints
    `…/main.py:LINE` (JAX's 'output of sin from …:39:9'): the generator's own renaming,
    not a difference the seeding hint could fix."""
    where = (  # named relative to the course in a build, as the file's name here
        "import inspect, os\nframe = inspect.currentframe()\n"
        'print(f"from {os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}:5 (g)")\n'
        'print("Batch sizes:", sizes)'
    )
    text = authoring_example().replace('print("Batch sizes:", sizes)', where)
    record = build_lesson(course_folder, text)
    assert "lesson.md:" in record.blocks["step-2"].stdout


def test_locations_in_the_lesson_and_in_main_py_read_the_same_wherever_they_are():
    from coursesite.execution.sourcelocations import same_locations

    lesson = "content/06-recovery/08-gradient-checkpointing.md"
    step = "f32[5] output of sin from content/06-recovery/08-gradient-checkpointing.md:39:9 (g)"
    main = "f32[5] output of sin from /tmp/b/lesson/reader/main.py:12:9 (g)"
    assert same_locations(step, lesson) == same_locations(main, lesson)
    assert same_locations('File "main.py", line 3', lesson) == 'File "<lesson code>", line …'
    # A location in another file, and what is around one, still count.
    assert same_locations("helper.py:3 (g)", lesson) == "helper.py:3 (g)"
    assert same_locations("from main.py:3 (h)", lesson) != same_locations(step, lesson)


THREADS_PRINTING = """import sys
import threading

sys.setswitchinterval(1e-6)  # threads take turns as often as they can
start = threading.Barrier(8)


def report():
    start.wait()
    for _ in range(60):
        print("callback", "received", "shape (1,)")


threads = [threading.Thread(target=report) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
sys.setswitchinterval(0.005)
"""


def test_prints_from_threads_at_once_are_whole_lines_in_both_runs(course_folder):
    """Eight threads printing at once (a JAX callback on each device) split each other's
    lines, differently on every run, and the main.py check failed on it: each print() is
    one write, in the build's run and in main.py's."""
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)', f'print("Batch sizes:", sizes)\n{THREADS_PRINTING}'
    )
    course_folder.write(text)
    build(course_folder.options(), RecordingProgress())
    folder = next((course_folder.root / "site").rglob("count-batches/record.json")).parent
    printed = recorded_stdout(folder)["step-2"].splitlines()
    assert printed[1:-1] == ["callback received shape (1,)"] * 480


def test_a_step_that_prints_matplotlibs_settings_prints_the_same_in_main_py(course_folder):
    """The lesson's run draws with the page's figure settings (lessonoutputs.py), and
    main.py's run has them too: a tutorial that prints rcParams passes the main.py check."""
    text = authoring_example().replace(
        'print("Batch sizes:", sizes)',
        'print("Batch sizes:", sizes)\nimport matplotlib\n'
        "print({key: matplotlib.rcParams[key] for key in ('svg.fonttype', 'figure.figsize')})",
    )
    course_folder.write(text)
    build(course_folder.options(), RecordingProgress())
    folder = next((course_folder.root / "site").rglob("count-batches/record.json")).parent
    assert (
        "{'svg.fonttype': 'none', 'figure.figsize': [4.5, 3.0]}"
        in (recorded_stdout(folder)["step-2"])
    )


def test_a_step_tagged_nbval_ignore_output_may_print_other_lines_in_main_py(course_folder):
    """A table of timings has no text a `volatile:` pattern could tell its rows by: the
    step's tag says its output differs on every run. Its lines match any lines, as many;
    the other steps' output is still compared."""
    table = "import os\nfor row in range(3):\n    print('|', row, '|', os.urandom(6).hex(), '|')\n"
    varying = authoring_example().replace("ids = np.arange(11)\n", "ids = np.arange(11)\n" + table)
    course_folder.write(varying)
    with pytest.raises(BuildErrors) as caught:
        build(course_folder.options(), RecordingProgress())
    assert "first in the output of step 1, its line 1" in caught.value.errors[0].message
    tagged = varying.replace(
        ":::{step} 1. Make the records\n",
        ":::{step} 1. Make the records\n:tags: [nbval-ignore-output]\n",
    )
    course_folder.write(tagged)
    build(course_folder.options(), RecordingProgress())
    page = next((course_folder.root / "site").rglob("count-batches/index.html")).read_text()
    assert "the output of step 1 differs on every run (tagged" in page
    # The notebook download keeps the tag, for nbval (and this tool's import) to read.
    [notebook] = (course_folder.root / "site").rglob("lesson.ipynb")
    cells = [c for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]
    assert [c["metadata"].get("tags") for c in cells[:2]] == [["nbval-ignore-output"], None]
    # As nbval ignores the cell's output whole, its number of lines too: main.py may print
    # more rows (main.py runs in an empty folder, without the build's job.json), or none.
    for rows in ("3 + os.path.exists('job.json')", "3 * os.path.exists('job.json')"):
        course_folder.write(tagged.replace("range(3)", f"range({rows})"))
        build(course_folder.options(), RecordingProgress())
    # Another step's output is compared as before, after the tagged step's other rows too.
    course_folder.write(
        tagged.replace("range(3)", "range(3 + os.path.exists('job.json'))").replace(
            'print("Batch sizes:", sizes)',
            'print("Batch sizes:", sizes, os.path.exists("job.json"))',
        )
    )
    with pytest.raises(BuildErrors) as caught:
        build(course_folder.options(), RecordingProgress())
    assert "first in the output of step 2, its line 1" in caught.value.errors[0].message
    assert "-Batch sizes: [4, 4, 3] True\n+Batch sizes: [4, 4, 3] False" in str(
        caught.value.errors[0].detail
    )


@pytest.mark.parametrize(
    ("expected", "actual", "covers"),
    [
        (["a", "*", "b"], ["a", "x", "y", "b"], [["x", "y"]]),
        (["a", "*", "b"], ["a", "b"], [[]]),
        (["*", "a"], ["a", "a"], [["a"]]),  # the last run ends the output
        (["*", "b", "*", "b"], ["x", "b", "b", "b"], [["x"], ["b"]]),  # leftmost, then the end
        (["*", "*", "c"], ["x", "c"], [[], ["x"]]),
        (["a", "*", "c"], ["a", "x"], [[]]),  # no match: the diff shows x where c was
    ],
)
def test_a_tagged_step_stands_for_the_lines_a_glob_would_give_it(expected, actual, covers):
    stand_in = mainpycheck._VARYING
    expected = [stand_in if line == "*" else line for line in expected]
    assert mainpycheck._covers(expected, actual) == covers
