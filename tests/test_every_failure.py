"""One build reports every failing block of a lesson, through the real build: the runner
goes on after a failed block, and a block that failed only because an earlier one did is
named as its consequence. A failed lesson still writes nothing."""

import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from conftest import RecordingProgress, authoring_example, build_errors, line_of, replace_block
from coursesite.execution.blockfailures import bound_names

STEPS = """:::{step} 2. Batch and check
```python
batches = [ids[i:i + 4] for i in range(0, len(ids), 4)]
sizes = [len(b) for b in batches]
print("PASS: count-batches")
STEP_TWO_END
```
:::

:::{step} 3. Count them
```python
STEP_THREE
```
:::

:::{step} 4. Look one up
```python
STEP_FOUR
```
:::
"""


def with_steps(two_end: str, three: str, four: str) -> str:
    steps = STEPS.replace("STEP_TWO_END", two_end).replace("STEP_THREE", three)
    return replace_block(authoring_example(), ":::{step} 2.", steps.replace("STEP_FOUR", four))


def test_two_independent_failing_steps_are_both_reported_at_their_lines(course_folder):
    text = with_steps(
        "ratio = len(ids) / 0", "total = sum(sizes)\nprint(total)", "counts = {'a': 1}\ncounts['b']"
    )
    divided, looked_up = build_errors(course_folder, text)
    assert divided.message.startswith("step 2 failed: ZeroDivisionError")
    assert divided.line == line_of(text, "ratio = len(ids) / 0")
    assert "ZeroDivisionError" in divided.hint and ":raises:" in divided.hint
    assert "what it printed before it failed:\nPASS: count-batches" in divided.detail
    assert looked_up.message == "step 4 failed: KeyError: 'b'"
    assert looked_up.line == line_of(text, "counts['b']")
    assert "':raises: KeyError'" in looked_up.hint
    assert "counts['b']" in looked_up.detail  # its own traceback, in lesson-file lines
    # The build failed: no record, no page.
    assert not (course_folder.root / "records").exists()
    assert not (course_folder.root / "site").exists()


def test_a_step_that_fails_for_want_of_an_earlier_failed_steps_name_is_its_consequence(
    course_folder,
):
    text = with_steps("scale = 1 / 0", "print(sizes[0] * scale)", "print(len(sizes))")
    (cause,) = build_errors(course_folder, text)  # one message for one cause
    assert cause.message.startswith("step 2 failed: ZeroDivisionError")
    assert cause.line == line_of(text, "scale = 1 / 0")
    # the consequence is one line under it, with no traceback that sends the author to step 3
    assert cause.detail.startswith("step 3 failed because step 2 failed (names: scale)\n")


def test_a_misspelt_name_is_its_own_mistake_though_an_earlier_step_failed(course_folder):
    text = with_steps("scale = 1 / 0", "print(sizez)", "print(len(sizes))")
    _, misspelt = build_errors(course_folder, text)
    assert misspelt.message == "step 3 failed: NameError: name 'sizez' is not defined"
    assert "because" not in misspelt.message


def test_the_cli_reports_every_failing_step_and_exits_non_zero(course_folder):
    text = with_steps("ratio = len(ids) / 0", "print(sum(sizes) + ratio)", "{'a': 1}['b']")
    course_folder.write(text)
    built = course_folder.cli("-q")
    assert built.returncode == 1
    assert "build failed: 2 problem(s); site not changed" in built.stderr
    divided, looked_up = line_of(text, "ratio = len(ids) / 0"), line_of(text, "{'a': 1}['b']")
    assert f"lesson.md:{divided}: step 2 failed: ZeroDivisionError" in built.stderr
    assert f"lesson.md:{looked_up}: step 4 failed: KeyError" in built.stderr
    # what follows from a cause is one line under it
    assert "  | step 3 failed because step 2 failed (names: ratio)" in built.stderr
    assert built.stderr.index("step 3 failed") < built.stderr.index("step 4 failed")
    assert "runner.py" not in built.stderr  # tracebacks in lesson-file lines only


def network_notebook(path) -> None:
    """A notebook whose stored outputs show two cells that worked where it was written and
    fail here: one reads a file that is not beside it, one parses what a server sent."""
    notebook = new_notebook(
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Py"}}
    )
    notebook.cells = [
        new_markdown_cell("# Reading the rows\n\n## Setup"),
        new_code_cell("import json"),
        new_markdown_cell("## Read the rows"),
        new_code_cell(
            "rows = open('rows.csv').read().splitlines()\nprint(len(rows))",
            outputs=[new_output("stream", name="stdout", text="3\n")],
        ),
        new_markdown_cell("## Read the settings"),
        new_code_cell(
            "settings = json.loads('{\"batch\": 4')\nprint(settings)",
            outputs=[new_output("stream", name="stdout", text="{'batch': 4}\n")],
        ),
        new_markdown_cell("## Count"),
        new_code_cell("print(11 // 4)", outputs=[new_output("stream", name="stdout", text="2\n")]),
    ]
    nbformat.write(notebook, path)


def test_an_imported_notebook_with_two_failing_cells_shows_both_in_one_build(course_folder):
    course_folder.write(authoring_example())
    network_notebook(course_folder.root / "rows.ipynb")
    imported = course_folder.cli("import", "rows.ipynb", "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    lesson = course_folder.root / "content" / "02-reading-the-rows" / "01-reading-the-rows.md"
    text = lesson.read_text()
    built = course_folder.cli("-q")
    assert built.returncode == 1
    assert "build failed: 2 problem(s); site not changed" in built.stderr
    read, parsed = line_of(text, "open('rows.csv')"), line_of(text, "json.loads(")
    assert f"01-reading-the-rows.md:{read}: step 2 failed: FileNotFoundError" in built.stderr
    assert f"01-reading-the-rows.md:{parsed}: step 3 failed: JSONDecodeError" in built.stderr
    assert "site" not in [path.name for path in course_folder.root.iterdir()]


def test_a_step_that_hangs_after_a_failure_still_shows_that_failure(course_folder):
    waits = "import time\nwhile 'limit' not in globals():\n    time.sleep(0.05)"
    text = with_steps("limit = 1 / 0", waits, "print(len(sizes))")
    divided, stopped = build_errors(course_folder, text, timeout=3)
    assert divided.message.startswith("step 2 failed: ZeroDivisionError")
    assert divided.line == line_of(text, "limit = 1 / 0")
    # Put at the step it was in, with how long the steps before it took.
    assert stopped.message == (
        "lesson code ran longer than 3 s and was stopped, in step 3, after the 2 before it "
        "had run in 0 s, after blocks had failed before it"
    )
    assert stopped.line == line_of(text, "while 'limit' not in globals():") - 1
    assert stopped.hint.startswith("fix the failures above first")


def test_a_step_that_ends_the_process_after_a_failure_still_shows_that_failure(course_folder):
    text = with_steps("limit = 1 / 0", "import os\nos._exit(3)", "print(len(sizes))")
    divided, ended = build_errors(course_folder, text)
    assert divided.line == line_of(text, "limit = 1 / 0")
    assert ended.message.startswith(
        "lesson process ended without a result (exit status 3), in step 3, after the 2 "
        "before it had run in 0 s"
    )
    assert ended.line == line_of(text, "os._exit(3)") - 1


def test_the_names_a_block_binds_are_every_kind_of_binding():
    code = (
        "import numpy as np, os.path\nfrom json import loads\nx, (y, z) = 1, (2, 3)\n"
        "def f(): pass\nclass C: pass\nfor i in []: pass\nwith open('f') as handle: pass\n"
        "try:\n    pass\nexcept Exception as problem:\n    pass\n(w := 4)\ncount += 1\n"
        "print(unbound)"
    )
    assert bound_names(code) == set("np os loads x y z f C i handle problem w count".split())
    assert bound_names("def broken(:") == set()  # it failed before binding anything


def test_a_step_that_fails_on_a_name_an_earlier_failed_step_did_not_rebind_is_its_consequence(
    course_folder,
):
    rebinds = "ratio = len(ids) / 0\nsizes = dict(enumerate(sizes))"
    text = with_steps(rebinds, "print(sizes.items())", "print(sizes['first'])")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 2 failed: ZeroDivisionError")
    assert cause.detail.startswith("steps 3, 4 failed because step 2 failed (names: sizes)\n")
    # Only the expression that raised counts: not the rest of its line.
    beside = with_steps(rebinds, "print(len(3), sizes)", "1")
    _, own = build_errors(course_folder, beside)
    assert own.message == "step 3 failed: TypeError: object of type 'int' has no len()"


def test_a_key_missing_from_a_name_an_earlier_failed_step_did_not_rebind_is_its_consequence(
    course_folder,
):
    """statsmodels' MSTL example reads a new `df` from the network in one step and looks up
    df["Date"] in the next: with the read failed, the KeyError on the old `df` was reported
    as a failure of its own, 'fix the code'. A key missing from a name nothing failed to
    rebind is still the step's own."""
    rebinds = "frame = {'a': 1}\nratio = len(ids) / 0\nframe = {'Date': 2}"
    text = with_steps(rebinds, "print(frame['Date'])", "other = {'x': 1}\nprint(other['y'])")
    cause, own = build_errors(course_folder, text)
    assert cause.message.startswith("step 2 failed: ZeroDivisionError")
    assert cause.detail.startswith("step 3 failed because step 2 failed (names: frame)\n")
    assert own.message == "step 4 failed: KeyError: 'y'"


def test_a_file_a_failed_step_was_to_write_by_its_name_is_its_consequence(course_folder):
    """Pythia's pandas tutorial writes nino_analyzed_output.csv and reads it back in the
    next step: with the writing step failed, the read's FileNotFoundError was a message of
    its own, 'save it beside the lesson'. A file no failed step was to write is the read's."""
    writes = "ratio = len(ids) / 0\nopen('made.csv', 'w').write('1')"
    text = with_steps(writes, "print(open('made.csv').read())", "print(open('never.csv').read())")
    cause, own = build_errors(course_folder, text)
    assert cause.message.startswith("step 2 failed: ZeroDivisionError")
    assert cause.detail.startswith("step 3 failed because step 2 failed (names: made.csv)\n")
    assert own.message.startswith("step 4 failed: FileNotFoundError")


def test_a_file_a_failed_step_was_to_save_with_numpy_is_its_consequence(course_folder):
    """NumPy says a missing file in its own words ("OSError: made.txt not found."), not
    Python's: np.loadtxt of what np.savetxt never wrote is folded under the failure too."""
    writes = "import numpy as np\nratio = len(ids) / 0\nnp.savetxt('made.txt', [1.0])"
    text = with_steps(writes, "print(np.loadtxt('made.txt'))", "print(len(ids))")
    cause = build_errors(course_folder, text)[0]
    assert cause.message.startswith("step 2 failed: ZeroDivisionError")
    assert cause.detail.startswith("step 3 failed because step 2 failed (names: made.txt)\n")


def test_a_failure_the_names_do_not_tie_to_an_earlier_failure_is_its_own(course_folder):
    # Step 2 did not get to rebind sizes, but neither failure reads it: each is its own.
    text = with_steps(
        "ratio = len(ids) / 0\nsizes = dict(enumerate(sizes))", "len(ids).items()", "len(5)"
    )
    _, attribute, typed = build_errors(course_folder, text)
    assert (
        attribute.message == "step 3 failed: AttributeError: 'int' object has no attribute 'items'"
    )
    assert typed.message == "step 4 failed: TypeError: object of type 'int' has no len()"
    assert attribute.detail and typed.detail  # their own tracebacks
    # A name bound before the failing line was rebound; one a later step bound again is
    # that step's value: neither failure is the failed step's consequence.
    reached = with_steps("sizes = tuple(sizes)\nratio = len(ids) / 0", "sizes.append(1)", "1")
    _, own = build_errors(course_folder, reached)
    assert own.message == "step 3 failed: AttributeError: 'tuple' object has no attribute 'append'"
    again = with_steps("ratio = 1 / 0\nsizes = tuple(sizes)", "sizes = {}", "sizes.append(1)")
    _, own = build_errors(course_folder, again)
    assert own.message == "step 4 failed: AttributeError: 'dict' object has no attribute 'append'"
    # So is one the failing step bound again itself, before the line that failed.
    itself = with_steps("ratio = 1 / 0\nsizes = tuple(sizes)", "sizes = 3\nsizes.append(1)", "1")
    _, own = build_errors(course_folder, itself)
    assert own.message == "step 3 failed: AttributeError: 'int' object has no attribute 'append'"


def test_an_expected_exception_that_a_failed_step_took_away_is_its_consequence(course_folder):
    redefines = "class Batch(list):\n    pass\nlimit = 1 / 0\nclass Batch(tuple):\n    pass"
    text = with_steps(redefines, "Batch([1, 2])[0] = 3", "print(len(sizes))").replace(
        ":::{step} 3. Count them\n", ":::{step} 3. Count them\n:raises: TypeError\n"
    )
    (cause,) = build_errors(course_folder, text)
    assert cause.line == line_of(text, "limit = 1 / 0")
    assert cause.detail.startswith("step 3 failed because step 2 failed (names: Batch)\n")
    # The same step, using nothing step 2 failed to bind, fails on its own.
    alone = text.replace("Batch([1, 2])[0] = 3", "[1, 2][0] = 3")
    _, own = build_errors(course_folder, alone)
    assert own.message == "step 3 failed: expected TypeError to be raised, but nothing was"


def test_a_cascade_of_consequences_is_one_line_under_its_one_cause(course_folder):
    # Step 2 fails; step 3 fails for want of its name, step 4 for want of step 3's.
    text = with_steps("scale = 1 / 0", "scaled = [s * scale for s in sizes]", "print(scaled)")
    course_folder.write(text)
    built = course_folder.cli("-q")
    assert "build failed: 1 problem(s); site not changed" in built.stderr
    assert "  | steps 3, 4 failed because step 2 failed (names: scale, scaled)" in built.stderr
    assert "because step 3 failed" not in built.stderr


def test_every_missing_module_the_lesson_imports_is_named_in_one_message(course_folder):
    # Step 2 stops at its first missing import; step 4 imports another; the lesson's own
    # module beside it counts as present.
    two = (
        "# !pip install coursesite-missing-two==1.2\nimport helper\n"
        "import coursesite_missing_one\nimport coursesite_missing_two as two"
    )
    text = with_steps(two, "print(two.x)", "import coursesite_missing_three\nprint(sizes)")
    course_folder.lesson_path.parent.mkdir(parents=True, exist_ok=True)
    (course_folder.lesson_path.parent / "helper.py").write_text("x = 1\n")
    (error,) = build_errors(course_folder, text)
    assert error.message == (
        "step 2 failed: ModuleNotFoundError: No module named 'coursesite_missing_one'"
    )
    assert error.hint == (
        "the lesson imports these modules, not installed where the site is built: "
        "coursesite_missing_one (step 2), coursesite_missing_two (step 2), "
        "coursesite_missing_three (step 4); install them there (pip install "
        "coursesite-missing-one coursesite-missing-two==1.2 coursesite-missing-three) and "
        "build again"
    )
    assert error.detail.startswith(
        "step 3 failed because step 2 failed (names: two)\n"
        "step 4 failed on modules the hint lists too\n"
    )


def test_an_error_raised_while_an_import_failed_is_named_as_the_missing_module(course_folder):
    """networkx's atlas example catches the failed `import pydot` and raises its own
    ImportError ("needs Graphviz and either PyGraphviz or pydot"), whose traceback does not
    show the failed import: the hint said "fix the code"; it names the module now."""
    guarded = (
        "try:\n    import coursesite_missing_dot\nexcept ImportError:\n"
        "    raise ImportError('This example needs coursesite_missing_dot.')"
    )
    (error,) = build_errors(course_folder, with_steps(guarded, "print(1)", "print(2)"))
    assert error.message == (
        "step 2 failed: ImportError: This example needs coursesite_missing_dot."
    )
    assert error.hint == (
        "the lesson imports this module, not installed where the site is built: "
        "coursesite_missing_dot (step 2); install it there (pip install "
        "coursesite-missing-dot) and build again"
    )
    own = with_steps(
        "try:\n    1 / 0\nexcept ZeroDivisionError:\n    raise ImportError('x')", "", ""
    )
    assert build_errors(course_folder, own)[0].hint.startswith("fix the code")


def test_a_mesh_larger_than_the_devices_says_how_many_and_how_to_get_them(course_folder):
    mesh = (
        "import jax\nfrom jax.experimental import mesh_utils\n"
        "devices = mesh_utils.create_device_mesh((2, 4))\nprint(devices.shape)"
    )
    text = with_steps("", mesh, "print(len(sizes))")
    (error,) = build_errors(course_folder, text)
    assert error.message == (
        "step 3 failed: ValueError: Number of devices 1 must equal the product of mesh_shape (2, 4)"
    )
    assert error.hint.startswith("the code needs 8 devices and JAX sees 1 here")
    assert ":raises:" not in error.hint
    # What the hint says to write, in the first step, is enough: its code, as it is.
    first = "".join(f"{code}\n" for code in re.findall(r"`([^`]+)`", error.hint)[:2])
    assert first.startswith("import os\nos.environ['XLA_FLAGS'] = ")
    fixed = text.replace(
        "```python\nimport numpy as np\n", f"```python\n{first}import numpy as np\n"
    )
    assert fixed != text
    course_folder.write(fixed)
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_steps_that_fail_with_the_same_error_are_one_message_naming_each_line(course_folder):
    mesh = (
        "import jax\nfrom jax.experimental import mesh_utils\nmesh_utils.create_device_mesh((2, 4))"
    )
    text = with_steps(
        "counts = {'a': 1}\ncounts['b']",
        mesh,
        "again = mesh_utils.create_device_mesh((2, 4))\nprint(again.shape)",
    )
    looked_up, error = build_errors(course_folder, text)
    assert looked_up.message == "step 2 failed: KeyError: 'b'"  # another error: its own
    assert error.message.startswith("step 3 failed: ValueError: Number of devices 1")
    again = line_of(text, "again = mesh_utils")
    assert error.detail.splitlines()[0] == f"step 4 failed with the same error too, at line {again}"


def test_steps_failing_at_one_line_of_an_earlier_step_name_that_line_once(course_folder):
    text = with_steps(
        "def count(x):\n    raise ValueError('counting is gone')\ncount(1)",
        "count(2)",
        "count(3)",
    )
    (error,) = build_errors(course_folder, text)
    assert error.message == "step 2 failed: ValueError: counting is gone"
    where = line_of(text, "    raise ValueError")
    assert error.detail.splitlines()[0] == (
        f"steps 3, 4 failed with the same error too, at line {where}"
    )


def test_names_one_installed_package_lacks_are_one_message_naming_each_line(course_folder):
    text = with_steps(
        "import numpy as np\nfrom numpy import coursesite_gone",
        "np.coursesite_also_gone(1)",
        "from json import coursesite_gone_too",
    )
    drift, other_package = build_errors(course_folder, text)
    assert drift.message.startswith("step 2 failed: ImportError: cannot import name")
    assert "the installed numpy has no numpy.coursesite_gone" in drift.hint
    later = line_of(text, "np.coursesite_also_gone(1)")
    assert drift.detail.splitlines()[0] == (
        f"step 3 uses more that the installed numpy lacks: numpy.coursesite_also_gone "
        f"(line {later})"
    )
    assert other_package.message.startswith("step 4 failed: ImportError")  # json's: its own
    assert "Python (installed:" in other_package.hint


def test_what_fails_for_want_of_a_step_that_lacked_another_module_folds_under_the_first():
    from types import SimpleNamespace

    from coursesite.execution.blockfailures import lesson_failures_error

    codes = ["import coursesite_missing_a", "import coursesite_missing_b as b", "print(b)"]
    blocks = [
        {"id": f"step-{n}", "code": code, "line": 10 * n, "program": True}
        for n, code in enumerate(codes, start=1)
    ]
    job = SimpleNamespace(
        payload={"blocks": blocks, "source_path": "lesson.md", "source_text": ""},
        labels={block["id"]: block["id"].replace("-", " ") for block in blocks},
        inputs={},
        path=Path("lesson.md"),
        memory_mb=100,
        solution_ids=[],
        step_lines={block["id"]: block["line"] for block in blocks},
        stored_runs={},
    )

    def failed(n, message):
        return {"block": f"step-{n}", "line": 10 * n, "message": message, "traceback": ""}

    error = lesson_failures_error(
        [
            failed(1, "ModuleNotFoundError: No module named 'coursesite_missing_a'"),
            failed(2, "ModuleNotFoundError: No module named 'coursesite_missing_b'"),
            failed(3, "NameError: name 'b' is not defined"),
        ],
        {},
        job,
    )
    assert [each.message for each in getattr(error, "errors", [error])] == [
        "step 1 failed: ModuleNotFoundError: No module named 'coursesite_missing_a'"
    ]
    assert error.detail.splitlines() == [
        "step 3 failed because step 1 failed (names: b)",
        "step 2 failed on modules the hint lists too",
    ]


DOWNLOAD = (
    "import os\n"
    "def fetch(name):\n"
    "    raise ConnectionError(f'the server did not answer for {name}')\n"
    "data_dir = '_data'\n"
    "os.makedirs(data_dir, exist_ok=True)\n"
    "for name in ['train.bin']:\n"
    "    path = os.path.join(data_dir, name)\n"
    "    body = fetch(name)\n"
    "    with open(path, 'wb') as handle:\n"
    "        handle.write(body)"
)
READ = (
    "dataset = {}\n"
    "for name in ['train.bin']:\n"
    "    with open(os.path.join(data_dir, name), 'rb') as handle:\n"
    "        dataset[name] = handle.read()"
)


def test_what_a_failed_download_was_to_write_and_fill_fails_as_its_consequence(course_folder):
    """The file the download never wrote, and the dict the read of it never filled: a
    notebook that downloads its data fails once, at the download."""
    text = with_steps(DOWNLOAD, READ, "print(len(dataset['train.bin']))")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 2 failed: ConnectionError: the server did not answer")
    assert cause.detail.startswith(
        "steps 3, 4 failed because step 2 failed (names: data_dir, dataset)\n"
    )


def test_a_file_or_key_the_failed_step_was_not_to_make_is_its_own_failure(course_folder):
    other_file = READ.replace("os.path.join(data_dir, name)", "'rows.csv'")
    _, read = build_errors(course_folder, with_steps(DOWNLOAD, other_file, "1"))
    assert read.message == (
        "step 3 failed: FileNotFoundError: [Errno 2] No such file or directory: 'rows.csv'"
    )
    # A dict the failed step filled before the line it failed at, or one it never fills,
    # is no consequence of it.
    filled_first = "sizes_by = {}\nsizes_by['a'] = 1\nratio = 1 / 0"
    for three in ("print(sizes_by['b'])", "counts = {}\nprint(counts['b'])"):
        _, key = build_errors(course_folder, with_steps(filled_first, three, "1"))
        assert key.message == "step 3 failed: KeyError: 'b'"
    # One it was to fill after that line is.
    filled_after = filled_first + "\nsizes_by['b'] = 2"
    (cause,) = build_errors(course_folder, with_steps(filled_after, "print(sizes_by['b'])", "1"))
    assert cause.detail.startswith("step 3 failed because step 2 failed (names: sizes_by)\n")


def test_any_failure_reading_what_a_failed_download_never_wrote_is_its_consequence(
    course_folder,
):
    """A reader of the file complains in its own words (here an assertion), not only with
    FileNotFoundError: the path it reads is made of the name the download's write used."""
    check = "assert os.path.exists(os.path.join(data_dir, 'train.bin')), 'no training data'"
    (cause,) = build_errors(course_folder, with_steps(DOWNLOAD, check, "1"))
    assert cause.detail.startswith("step 3 failed because step 2 failed (names: data_dir)\n")
    # The same assertion on a path of its own is its own failure.
    own = check.replace("os.path.join(data_dir, 'train.bin')", "'rows.csv'")
    _, failed = build_errors(course_folder, with_steps(DOWNLOAD, own, "1"))
    assert failed.message == "step 3 failed: AssertionError: no training data"


def test_processes_started_the_spawn_way_are_named_as_the_cause(course_folder):
    """dask.distributed's Client() starts its workers the spawn way: each runs main.py
    again from its top, as for any script (not in a notebook's kernel), and the block
    fails with dask's own words, "Nanny failed to start"; the hint names the cause."""
    text = with_steps(
        "",
        "from dask.distributed import Client\nclient = Client(n_workers=1, threads_per_worker=1)",
        "print('after')",
    )
    [error] = build_errors(course_folder, text, timeout=300)
    assert error.message.startswith("step 3 failed: RuntimeError: Nanny failed to start")
    assert error.hint.startswith("the code starts Python processes the 'spawn' way")
    assert "Client(processes=False)" in error.hint


def test_a_program_the_machine_lacks_is_named_as_a_program_not_a_file(course_folder):
    text = with_steps(
        "",
        "import subprocess\nsubprocess.check_output(['coursesite-no-such-program', '-L'])",
        "print('after')",
    )
    [error] = build_errors(course_folder, text)
    assert error.message.startswith("step 3 failed: FileNotFoundError")
    assert error.hint.startswith(
        "the code runs the program coursesite-no-such-program, which the machine that builds "
        "the site does not have"
    )


# `.invalid` never resolves (RFC 2606): a real read of the network that fails at once.
READ_ROWS = (
    "import urllib.request\nrows = urllib.request.urlopen('http://rows.invalid/a.csv', timeout=5)"
)
QUIET_READ = (
    "def download(host):\n"
    "    try:\n"
    "        return urllib.request.urlopen(f'http://{host}/p.csv', timeout=5).read().split()\n"
    "    except OSError as error:  # as yfinance does: say so, and hand back nothing\n"
    "        print(f'Failed download: {error}')\n"
    "        return []\n"
    "prices = download('prices.invalid')"
)


def test_reads_of_several_servers_are_one_network_cause_naming_each_host(course_folder):
    """No network is one cause, however many servers the lesson reads: one message, and a
    line naming the other steps, their hosts and lines."""
    other = "prices = urllib.request.urlopen('http://prices.invalid/b.csv', timeout=5)"
    text = with_steps(READ_ROWS, other, "print(len(sizes))")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 2 failed: URLError")
    assert cause.message.endswith("; it read the network")
    assert cause.detail.startswith(
        f"step 3 failed reading the network too (prices.invalid), at line {line_of(text, other)}\n"
    )


def test_a_step_using_what_a_read_that_failed_quietly_returned_is_the_networks(course_folder):
    """A library that prints its network failure and returns nothing (yfinance) makes a
    later step fail on what it returned: that failure is the network's, said with what
    the read printed, not 'fix the code'."""
    text = with_steps(
        "import urllib.request", QUIET_READ, "print(sum(map(float, prices)) / len(prices))"
    )
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 4 failed: ZeroDivisionError")
    assert "; it used 'prices', which step 3 read from the network" in cause.message
    assert "step 3 printed 'Failed download: <urlopen error" in cause.message
    assert cause.hint.startswith("the machine that builds the site may have no network")
    # After a read that raised, it is the same cause: one message, naming its host.
    quiet = QUIET_READ.replace("{error}", "Could not resolve host: {host}")
    text = with_steps(READ_ROWS, quiet, "print(sum(map(float, prices)) / len(prices))")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 2 failed: URLError")
    assert cause.detail.startswith("step 4 failed reading the network too (prices.invalid)")
    # A failure that uses nothing the quiet read returned is the code's own.
    text = with_steps("import urllib.request", QUIET_READ, "print(len(sizes) / 0)")
    (own,) = build_errors(course_folder, text)
    assert "network" not in own.message and ":raises: ZeroDivisionError" in own.hint


def test_a_step_that_reads_what_its_own_quiet_download_never_got_is_the_networks(course_folder):
    """working_with_text calls nltk.download('stopwords'), which prints "Error loading
    stopwords: <urlopen error ...>" and returns, then reads the corpus in the same step:
    nltk's LookupError was said to be nltk's version's. The step printed the network's
    failure before it failed: the network's cause, said with what it printed."""
    text = with_steps("import urllib.request", QUIET_READ + "\nprint(prices[0])", "print(1)")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 3 failed: IndexError: list index out of range")
    assert "; it printed 'Failed download: <urlopen error" in cause.message
    assert cause.message.endswith(
        "before it failed: a read of the network it made failed without raising"
    )
    assert cause.hint.startswith("the machine that builds the site may have no network")
    # nltk wraps its line: "Name or" on one, "[nltk_data]     service not known>" on the next.
    wrapped = (
        "import sys\n"
        "print('[nltk_data] Error loading stopwords: <urlopen error [Errno -2] Name or',\n"
        "      file=sys.stderr)\n"
        "print('[nltk_data]     service not known>', file=sys.stderr)\n"
        "words = {}['stopwords']"
    )
    (cause,) = build_errors(course_folder, with_steps("import urllib.request", wrapped, "print(1)"))
    assert cause.message.startswith("step 3 failed: KeyError")
    assert (
        "; it printed '[nltk_data] Error loading stopwords: <urlopen error [Errno -2] Name or "
        "service not known>' before it failed" in cause.message
    )
    # A step that printed nothing of the network fails for the code's own reasons.
    text = with_steps("import urllib.request", "prices = []\nprint(prices[0])", "print(1)")
    (own,) = build_errors(course_folder, text)
    assert "network" not in own.message and own.hint.startswith("fix the code")


def test_a_value_error_on_what_the_step_made_of_a_stale_name_is_a_consequence(course_folder):
    """QuantEcon's visualization_rules read World Bank data into `df` over the network; the
    read failed, so the next step's `not_japan = list(df.columns)` took an older `df`, and
    `not_japan.remove("Japan")` raised ValueError: said as its own mistake ("fix the
    code"). It follows from the failed read, through what the step made of `df`."""
    read = (
        "columns = urllib.request.urlopen('http://rows.invalid/c.csv', timeout=5)"
        ".read().decode().split(',')"
    )
    text = with_steps(
        "import urllib.request\ncolumns = ['a', 'b']",
        read,
        "names = list(columns)\nnames.remove('Japan')",
    )
    (network,) = build_errors(course_folder, text)
    assert network.message.startswith("step 3 failed: URLError")
    assert "step 4 failed because step 3 failed (names: columns)" in network.detail
    # Made of nothing the failed read was to bind: the step's own mistake.
    text = with_steps(
        "import urllib.request\ncolumns = ['a', 'b']", read, "names = ['x']\nnames.remove('Japan')"
    )
    _, own = build_errors(course_folder, text)
    assert own.message.startswith("step 4 failed: ValueError") and own.hint.startswith("fix")


def test_a_key_a_failed_step_was_to_add_missed_by_what_it_is_handed_to_is_a_consequence(
    course_folder,
):
    """QuantEcon's groupby: `df2["Date"] = ...` failed, and the next step's
    `df2.groupby(pd.Grouper(key="Date"))` raised KeyError inside pandas: no subscript of
    `df2` in the step, but the key the failed step was to add to it."""
    text = with_steps(
        "import operator",
        "table = {'b': 2}\ntable['a'] = 1 / 0",
        "print(operator.itemgetter('a')(table))",
    )
    (divided,) = build_errors(course_folder, text)
    assert divided.message.startswith("step 3 failed: ZeroDivisionError")
    assert "step 4 failed because step 3 failed (names: table)" in divided.detail
    # A container the failed step was not filling: the step's own KeyError.
    text = with_steps(
        "import operator",
        "table = {'b': 2}\nother = 1 / 0",
        "print(operator.itemgetter('a')(table))",
    )
    _, own = build_errors(course_folder, text)
    assert own.message.startswith("step 4 failed: KeyError")


def test_an_attribute_missing_from_what_the_step_made_of_a_stale_name_is_a_consequence(
    course_folder,
):
    """working_with_text: the step that was to fill `forecastlist` failed after its first
    line, and the next step's `forecasts = pd.DataFrame(forecastlist)` made an empty frame,
    whose `forecasts.dangerRatings` raised AttributeError: the failed step's consequence."""
    fill = "rows = []\nfor region in regions:\n    rows = rows + [region]"
    text = with_steps(
        "import types",
        fill,
        "table = types.SimpleNamespace(**dict(rows))\nprint(table.danger)",
    )
    (undefined,) = build_errors(course_folder, text)
    assert undefined.message.startswith("step 3 failed: NameError: name 'regions'")
    assert "step 4 failed because step 3 failed (names: rows)" in undefined.detail


def test_a_module_an_unreached_write_used_ties_no_later_failure_to_it(course_folder):
    """QuantEcon's storage_formats: step 7's df1.to_excel failed, and step 8's unreached
    `pd.ExcelWriter('df1.xlsx')` made `pd` a name the path of a write was made of, so step
    14's `pd.read_csv(url)`, a read of the network, was said to fail because step 7 did. A
    module is no path: the read is the network's own cause."""
    write = (
        "ratio = 1 / 0\nwith open(os.path.join('out', 'a.txt'), 'w') as handle:\n"
        "    handle.write('x')"
    )
    read = (
        "rows = urllib.request.urlopen(\n"
        "    os.environ.get('ROWS', 'http://rows.invalid/a.csv'), timeout=5\n)"
    )
    text = with_steps("import os\nimport urllib.request", write, read)
    divided, network = build_errors(course_folder, text)
    assert divided.message.startswith("step 3 failed: ZeroDivisionError")
    assert network.message.startswith("step 4 failed: URLError")
    assert network.message.endswith("; it read the network")


def test_a_url_error_printed_as_text_is_a_failed_read_whatever_its_reason():
    """nltk prints the URLError its download met as text ("<urlopen error [Errno 111]
    Connection refused>", or a proxy's refusal): any reason is a failed read."""
    from coursesite.execution.networkfailures import printed_failure

    printed = "[nltk_data] Error loading punkt: <urlopen error [Errno 111] Connection refused>"
    assert printed_failure({"stderr": f"working\n{printed}\n"}) == printed
    assert printed_failure({"stdout": "urlopen is a function\nerror: none"}) is None


def test_an_error_raised_inside_a_library_the_step_calls_names_it_and_its_version(
    course_folder,
):
    """statsmodels' mediation example ended in NumPy's 'SVD did not converge', raised deep
    inside statsmodels' Mediation.fit: 'fix the code' sent the author to a line with no
    mistake. The hint names the package the line calls and its version; an error the
    lesson's own code raises, or the standard library's, is still the code's to fix."""
    import numpy

    text = with_steps(
        "import numpy as np",
        "np.linalg.cholesky(np.array([[-1.0]]))",
        "import json\njson.loads('not json')",
    )
    inside, own = build_errors(course_folder, text)
    assert inside.message.startswith("step 3 failed: LinAlgError")
    assert inside.hint.startswith(
        f"it was raised inside numpy (installed: {numpy.__version__}), which this line calls: "
        "check what the code gives it; code written for another version of numpy may need "
        "that version"
    ), inside.hint
    assert ":raises: LinAlgError" in inside.hint
    assert own.message.startswith("step 4 failed: JSONDecodeError")
    assert own.hint.startswith("fix the code"), own.hint


def test_a_figure_that_reads_the_network_as_it_is_drawn_is_the_networks(course_folder):
    """Cartopy fetches Natural Earth's coastlines when the figure is drawn, which the build
    does as it saves it: the failure, 'the figure it drew cannot be saved as SVG: URLError',
    said 'fix the code'. It is the network's, with what to do."""
    drawn = (
        "import urllib.request\nimport matplotlib.pyplot as plt\n"
        "from matplotlib.artist import Artist\n"
        "class Coastlines(Artist):\n"
        "    def draw(self, renderer):\n"
        "        urllib.request.urlopen('http://coast.invalid/110m.zip', timeout=5)\n"
        "figure, axes = plt.subplots()\naxes.add_artist(Coastlines())"
    )
    text = with_steps("print(len(ids))", drawn, "print(1)")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith(
        "step 3 failed: the figure it drew cannot be saved as SVG: URLError: <urlopen error"
    ), cause.message
    assert cause.message.endswith("; it read the network")
    assert cause.hint.startswith("the machine that builds the site may have no network")


def test_a_read_that_failed_quietly_fails_the_build_though_no_step_raised(course_folder):
    """QuantEcon's commod_price plots what yf.download returned: with no network, yfinance
    printed 'Could not resolve host' and returned an empty table, and the build passed with
    an empty chart as the lesson's result. The read is the lesson's failure, said once."""
    again = QUIET_READ.replace("prices = download", "volumes = download")
    text = with_steps("import urllib.request", QUIET_READ, f"print(len(prices))\n{again}")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith(
        "step 3 read the network and got nothing, though it raised no error: it printed "
        "'Failed download: <urlopen error"
    ), cause.message
    assert cause.line == line_of(text, "def download(host):")
    assert cause.hint.startswith("the machine that builds the site may have no network")
    assert (
        cause.detail
        == f"step 4 printed such a failure too, at line {line_of(text, 'print(len(prices))')}"
    )


def test_a_step_reading_what_a_shell_download_left_as_a_comment_was_to_fetch_is_the_networks(
    course_folder,
):
    """The import leaves a notebook's `!wget URL -O folder/file` as a comment (a shell line
    is no Python); a later step that reads that folder fails (an assert, a missing file) for
    want of the download: the network's cause, said with the shell line, not 'fix the code'."""
    folder = "data/imdb"  # in the folder the lesson runs in; /tmp/data/imdb in the tutorial
    download = (
        f"import os\nos.makedirs({folder!r}, exist_ok=True)\n"
        f"# notebook magic, not run: !wget https://example.org/imdb.tar.gz -O {folder}/imdb.tgz\n"
        f"# notebook magic, not run: !cd {folder}/ && tar -xf imdb.tgz"
    )
    read = f"from pathlib import Path\nroot = Path({folder + '/aclImdb'!r})\nassert root.exists()"
    text = with_steps(download, read, "print(1)")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 3 failed: AssertionError; it uses "), cause.message
    assert (
        f"it uses {folder}/aclImdb, which a shell command of step 2 was to download ('wget "
        f"https://example.org/imdb.tar.gz -O {folder}/imdb.tgz'), left as a comment and never run"
    ) in cause.message
    assert cause.hint.startswith("the machine that builds the site may have no network")
    # A step reading a folder no commented download names fails as its own.
    text = with_steps(download, "assert os.path.exists('/elsewhere/x')", "print(1)")
    (own,) = build_errors(course_folder, text)
    assert "never run" not in own.message and own.hint.startswith("an assert failed")
    # The tutorial's own lines: the folders, not the address's path nor /tmp itself.
    from coursesite.execution.networkfailures import _download_folders

    shell = (
        "# !wget https://ai.stanford.edu/~amaas/data/sentiment/v1.tar.gz -O /tmp/data/imdb/v1.tgz"
        "\n# !cd /tmp/data/imdb/ && tar -xf v1.tgz\n# !wget -P /tmp https://example.org/x.zip"
    )
    assert [folder for folder, _ in _download_folders(shell)] == ["/tmp/data/imdb"] * 2
    assert _download_folders("# !unzip data.zip -d data/raw") == []  # a local archive: no read


def test_steps_that_ask_for_a_gpu_in_other_words_are_one_cause(course_folder):
    """A machine without a GPU is one cause, however each step asks for one (jax-ai-stack's
    guide for PyTorch users: torch's `.to("cuda")`, then `jax.devices("cuda")`)."""
    text = with_steps("import jax\njax.devices('cuda')", "jax.devices('gpu')", "print(1)")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 2 failed: RuntimeError: Unknown backend cuda")
    assert cause.hint.startswith("the code asks for a CUDA GPU")
    again = line_of(text, "jax.devices('gpu')")
    assert cause.detail.splitlines()[0] == f"step 3 failed for the same cause too, at line {again}"


def test_what_a_class_of_a_module_imported_under_an_alias_lacks_is_another_version(
    course_folder,
):
    """The build reads the lesson's imports: `co.OrderedDict.from_handlers` is a name of
    the installed collections, reached through its alias, not the code's own mistake."""
    text = with_steps("import collections as co", "co.OrderedDict.from_handlers()", "print(1)")
    (error,) = build_errors(course_folder, text)
    assert error.hint.startswith(
        "the installed collections has no collections.OrderedDict.from_handlers: the code was "
        "written for another version"
    ), error.hint


def test_an_installed_packages_object_lacking_an_attribute_is_another_version(course_folder):
    """Flax's filters guide calls `state.flat_state()`, which the installed flax's FlatState
    no longer has: the version's, not the code's; unless Python suggests a name (a typo)."""
    text = with_steps("import numpy as np", "a = np.zeros(2)\nprint(a.device_buffer)", "print(1)")
    (error,) = build_errors(course_folder, text)
    assert error.hint.startswith(
        "the installed numpy has no ndarray.device_buffer: the code was written for another "
        "version of numpy (installed: "
    ), error.hint
    typo = with_steps("import numpy as np", "a = np.zeros(2)\nprint(a.shap)", "print(1)")
    assert build_errors(course_folder, typo)[0].hint.startswith("fix the code")
    # Matplotlib's time-series example, for a newer version: `colorbar` is no typo of the
    # installed Axes' private `_colorbars`.
    newer = with_steps(
        "import matplotlib.pyplot as plt", "fig, ax = plt.subplots()\nax.colorbar()", "print(1)"
    )
    assert build_errors(course_folder, newer)[0].hint.startswith(
        "the installed matplotlib has no Axes.colorbar: the code was written for another"
    )
    own = with_steps("class Box:\n    pass", "print(Box().device_buffer)", "print(1)")
    assert build_errors(course_folder, own)[0].hint.startswith("fix the code")
    stdlib = with_steps("import fractions", "print(fractions.Fraction(1).device)", "print(1)")
    assert build_errors(course_folder, stdlib)[0].hint.startswith("fix the code")


def test_code_that_waits_for_someone_to_type_is_told_the_build_has_no_keyboard(course_folder):
    """Flax's Gemma guide calls kagglehub.login(), which asks for a token with getpass: a
    bare EOFError in the build, whose cause is the missing keyboard, not the code."""
    prompts = ("name = input('Your name: ')", "import getpass\ntoken = getpass.getpass()")
    for prompt in prompts:
        (error,) = build_errors(course_folder, with_steps("import os", prompt, "print(1)"))
        assert error.message.startswith("step 3 failed: EOFError"), error.message
        assert error.hint.startswith("the code waits for someone to type"), error.hint
    # An EOFError of the code's own (a pickle cut short) is the code's.
    cut = "import pickle, io\npickle.load(io.BytesIO(b''))"
    (own,) = build_errors(course_folder, with_steps("import os", cut, "print(1)"))
    assert own.hint.startswith("fix the code"), own.hint


def test_a_read_through_a_name_made_from_the_unwritten_path_is_its_consequence(course_folder):
    """Orbax's format guide builds a TensorStore spec from the checkpoint's path, then
    reads it: the spec is made of the path the failed save never wrote."""
    derived = "spec = {'path': os.path.join(data_dir, 'train.bin')}"
    text = with_steps(DOWNLOAD, derived, "print(open(spec['path'], 'rb').read())")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 2 failed: ConnectionError")
    assert cause.detail.startswith("step 4 failed because step 2 failed (names: spec)\n")
    # What is made of something else is no consequence of the failed write.
    other = "spec = {'path': os.path.join('elsewhere', 'train.bin')}"
    _, own = build_errors(course_folder, with_steps(DOWNLOAD, other, "open(spec['path'])"))
    assert own.message.startswith("step 4 failed: FileNotFoundError")


def test_an_attribute_a_failed_method_call_never_set_is_its_consequence(course_folder):
    """QuantEcon's `closed.simulate(...)` failed, so `closed.policy_seq` was never set: the
    step that reads it fails only because of that call."""
    sim = (
        "class Sim:\n    def run(self, n):\n        self.path = [1 / n]\n"
        "    def plot(self):\n        print(self.path)\nsim = Sim()"
    )
    for reads in ("print(sim.path)", "sim.plot()"):  # the attribute, or a method that reads it
        (cause,) = build_errors(course_folder, with_steps(sim, "sim.run(0)", reads))
        assert cause.message.startswith("step 3 failed: ZeroDivisionError")
        assert cause.detail.startswith("step 4 failed because step 3 failed (names: sim)\n")
    # A module's missing attribute is no state the failed call left unset: a misspelling.
    text = with_steps(sim + "\nimport json", "sim.run(0)\njson.dumps({})", "json.dumpz({})")
    _, own = build_errors(course_folder, text)
    assert own.message.startswith("step 4 failed: AttributeError: module 'json'")
    # An attribute of an object no failed step touched is the code's own mistake.
    _, own = build_errors(course_folder, with_steps(sim, "sim.run(0)", "print(Sim().other)"))
    assert own.message.startswith("step 4 failed: AttributeError")


def test_a_method_checking_what_a_failed_call_never_did_is_its_consequence(course_folder):
    """NumPyro's `mcmc.run(...)` failed, so `mcmc.get_samples()` asserts "`run` must be
    called before `get_samples`": it fails only because of that call. The same check on
    another object, which no failed step touched, is the code's own failure."""
    mcmc = (
        "class MCMC:\n    states = None\n    def run(self, n):\n        self.states = [1 / n]\n"
        "    def get_samples(self):\n        assert self.states, 'run must be called first'\n"
        "        return self.states\nmcmc = MCMC()"
    )
    text = with_steps(mcmc, "mcmc.run(0)", "samples = mcmc.get_samples()")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 3 failed: ZeroDivisionError")
    assert cause.detail.startswith("step 4 failed because step 3 failed (names: mcmc)\n")
    other = with_steps(mcmc, "mcmc.run(0)", "samples = MCMC().get_samples()")
    _, own = build_errors(course_folder, other)
    assert own.message.startswith("step 4 failed: AssertionError: run must be called first")


def test_keywords_one_installed_package_does_not_take_are_one_message_with_its_names(
    course_folder,
):
    """Orbax's guide passes keywords its installed version does not take in two steps: one
    cause, the version, named once with each call under it."""
    text = with_steps("import numpy as np", "np.zeros(3, nonsense=1)", "np.ones(2, other=1)")
    (drift,) = build_errors(course_folder, text)
    assert drift.message.startswith("step 3 failed: TypeError: zeros() got an unexpected")
    assert drift.hint.startswith("numpy.zeros of the installed numpy takes no keyword nonsense")
    assert drift.detail.splitlines()[0] == (
        "step 4 uses more that the installed numpy lacks: numpy.ones(other=) "
        f"(line {line_of(text, 'np.ones(2, other=1)')})"
    )


def test_a_stopped_run_names_the_longest_step_before_the_one_it_was_in(tmp_path):
    import json
    from types import SimpleNamespace

    from coursesite.errors import BuildError
    from coursesite.execution.runningblock import RUNNING_BLOCK, at_running_block

    blocks = [{"id": f"b{n}", "line": 10 * n} for n in range(1, 5)]
    job = SimpleNamespace(
        payload={"blocks": blocks}, labels={f"b{n}": f"step {n}" for n in range(1, 5)}
    )
    done = [["b1", 0.4], ["b2", 95.2], ["b3", 12.0]]
    (tmp_path / RUNNING_BLOCK).write_text(json.dumps({"block": "b4", "done": done}))
    stopped = at_running_block(BuildError("ran too long", "lesson.md"), tmp_path, job)
    assert stopped.line == 40
    assert stopped.message == (
        "ran too long, in step 4, after the 3 before it had run in 108 s (the longest: "
        "step 2, 95 s)"
    )
    # A file the lesson damaged leaves the error as it was.
    (tmp_path / RUNNING_BLOCK).write_text('{"block": "b9"')
    untouched = at_running_block(BuildError("ran too long", "lesson.md"), tmp_path, job)
    assert untouched.message == "ran too long" and untouched.line is None


PROSE_MISTAKES = "<div>boxed</div>\n\nSee {unknownrole}`x` and $\\frac{1}{$.\n"


def with_prose_mistakes(text: str) -> str:
    return text.replace("## The problem\n", "## The problem\n\n" + PROSE_MISTAKES)


def test_prose_mistakes_wait_for_the_run_so_one_build_names_them_with_the_codes(course_folder):
    """Raw HTML, an unknown role and bad math change nothing that runs: the build runs the
    code first and reports its failure with them, each at its line."""
    text = with_prose_mistakes(with_steps("", "total = sum(sizes) / 0", "print(total)"))
    errors = build_errors(course_folder, text)
    by_kind = {error.message.split(":")[0].split(" '")[0]: error for error in errors}
    assert sorted(by_kind) == ["cannot render math", "raw HTML", "step 3 failed", "unknown role"]
    assert by_kind["step 3 failed"].line == line_of(text, "sum(sizes) / 0")
    assert by_kind["raw HTML"].line == line_of(text, "<div>boxed</div>")
    assert by_kind["unknown role"].line == line_of(text, "{unknownrole}")
    assert by_kind["cannot render math"].line == line_of(text, "{unknownrole}")
    assert not (course_folder.root / "site").exists()


def test_a_run_whose_only_fault_is_its_prose_is_kept_for_the_mended_build(course_folder):
    from coursesite.pipeline import build

    text = authoring_example()
    for _ in range(2):  # the parse cache keeps no lesson whose prose is wrong
        errors = build_errors(course_folder, with_prose_mistakes(text))
        assert len(errors) == 3 and not (course_folder.root / "site").exists()
    course_folder.write(text)
    result = build(course_folder.options(), RecordingProgress())
    assert result.cached == ["count-batches"] and result.executed == []


def test_outside_a_build_a_prose_mistake_stops_the_parse(course_folder):
    from coursesite.errors import BuildErrors
    from coursesite.lesson.parse import parse_lesson

    text = authoring_example().replace("## The problem\n", "## The problem\n\n<b>x</b>\n")
    ref = course_folder.write(text).lessons[0]
    with pytest.raises(BuildErrors) as caught:
        parse_lesson(ref)
    (problem,) = caught.value.errors
    assert problem.message == "raw HTML '<b>' in lesson Markdown"
    assert problem.line == line_of(text, "<b>x</b>")
    assert parse_lesson(ref, defer_prose=True).prose_problems == [problem]


def test_a_call_of_a_function_a_library_made_with_arguments_it_does_not_take_names_it(
    course_folder,
):
    """BlackJAX's book keeps a sampler's step function as `step` and calls it with the
    `delta` an older BlackJAX took: Python names only `build_sampling_algorithm.<locals>.
    step_fn`. The hint says whose it is, what it takes, and that the code was written for
    another version (was "fix the code")."""
    made = "import jax\ninit = jax.nn.initializers.normal(0.1)\nkey = jax.random.key(0)"
    text = with_steps(made, "init(key, (2,), delta=0.5)", "init(key, (2,), 1, 2, 3)")
    (keyword,) = build_errors(course_folder, text)  # one cause: the version of jax
    assert keyword.message.startswith("step 3 failed: TypeError: normal.<locals>.init() got")
    assert keyword.hint.startswith(
        "normal.<locals>.init, of jax._src.nn.initializers, takes (key, shape, "
        "dtype=None, out_sharding=None) in the installed jax, not what this line passes: "
        "the code was written for another version of jax (installed: "
    ), keyword.hint
    positional_line = line_of(text, "init(key, (2,), 1, 2, 3)")
    assert (
        "step 4 uses more that the installed jax lacks: normal.<locals>.init(…) "
        f"(line {positional_line})"
    ) in keyword.detail
    # A function of the lesson's own, called so, is the code's mistake.
    own = with_steps("def init(key, shape):\n    pass", "init(1, 2, delta=0.5)", "pass")
    (mistake,) = build_errors(course_folder, own)
    assert mistake.hint.startswith("fix the code"), mistake.hint


def test_a_method_of_an_object_held_in_an_array_called_as_another_version_takes_it(
    course_folder,
):
    """Matplotlib's grouped-bar example, written for a newer Matplotlib, calls
    `axs[1].grouped_bar(x, heights)` on the array of axes plt.subplots gives: the method
    is found on the held object's class, and the hint says the code is for another version
    (was "fix the code"); a method of the lesson's own class, held so, is still its mistake."""
    drawn = "import matplotlib.pyplot as plt\nfig, axs = plt.subplots(1, 2)"
    text = with_steps(drawn, "axs[1].bar_label(1, 2, 3, 4)", "axs[0].bar_label(1, 2, 3, 4, 5)")
    (failure,) = build_errors(course_folder, text)  # one cause: the version, whatever the count
    assert "uses more that the installed matplotlib lacks: Axes.bar_label(…) (line" in (
        failure.detail
    )
    assert failure.hint.startswith(
        "Axes.bar_label, of matplotlib.axes._axes, takes (self, container, labels=None, *, "
    ), failure.hint
    assert "in the installed matplotlib, not what this line passes: the code was written" in (
        failure.hint
    )
    listed = "import matplotlib.pyplot as plt\naxes = list(plt.subplots(1, 2)[1])"
    in_list = with_steps(listed, "axes[0].bar_label(1, 2, 3, 4)", "print(1)")
    assert build_errors(course_folder, in_list)[0].hint.startswith("Axes.bar_label, of ")
    box = "class Box:\n    def put(self):\n        pass\nboxes = [Box()]"
    own = with_steps(box, "boxes[0].put(1)", "pass")
    (mistake,) = build_errors(course_folder, own)
    assert mistake.hint.startswith("fix the code"), mistake.hint


def test_a_list_a_failed_step_was_to_fill_refused_for_its_emptiness_is_a_consequence(
    course_folder,
):
    """BlackJAX's MLP chapter: the loop that was to fill `accuracies` failed at its first
    round (on a name of the failed download), and the next step's plot of `accuracies`
    raised ValueError ("x and y must have same first dimension"): a consequence, not a
    second cause."""
    loop = "levels = [1, 2]\naccuracies = []\nfor level in levels:\n    accuracies.append(1 / 0)"
    text = with_steps("import operator", loop, "print(max(accuracies))")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 3 failed: ZeroDivisionError")
    assert "step 4 failed because step 3 failed (names: accuracies)" in cause.detail
    # A list the failed step had filled before it failed is no consequence of it.
    filled = "accuracies = []\naccuracies.append(1)\nlevels = 1 / 0"
    text = with_steps("import operator", filled, "accuracies[0] + 'a'")
    _, own = build_errors(course_folder, text)
    assert own.message.startswith("step 4 failed: TypeError: unsupported operand")
    # Nor one it never touched.
    other = "accuracies = []\nother = []\nother.append(1 / 0)"
    _, own = build_errors(course_folder, with_steps("import operator", other, "max(accuracies)"))
    assert own.message.startswith("step 4 failed: ValueError: max() arg is an empty sequence")


def test_a_package_whose_import_failed_fails_again_as_the_first_failures_consequence(
    course_folder,
):
    """BlackJAX's sparse regression imports aesara, whose own import code fails under NumPy
    2; a later step imports it again and meets the half-imported package ("partially
    initialized module 'aesara' has no attribute 'compile'"): one cause, not two."""
    package = course_folder.lesson_path.parent / "halfpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("import halfpkg.compile\nfrom halfpkg import tensor\n")
    (package / "compile.py").write_text("X = 1\n")
    (package / "tensor.py").write_text(
        "import halfpkg\nhalfpkg.compile.X\nraise RuntimeError('made for NumPy 1')\n"
    )
    text = with_steps("import math", "import halfpkg.tensor as ht", "import halfpkg\nprint(1)")
    (cause,) = build_errors(course_folder, text)
    assert cause.message == "step 3 failed: RuntimeError: made for NumPy 1"
    assert cause.detail.startswith("step 4 failed because step 3 failed (names: halfpkg)\n")
    # Another package imported after the failure is no consequence of it.
    (package.parent / "otherpkg.py").write_text("raise ValueError('other')\n")
    text = with_steps("import math", "import halfpkg.tensor as ht", "import otherpkg")
    _, other = build_errors(course_folder, text)
    assert other.message == "step 4 failed: ValueError: other"


def test_names_a_block_raising_what_it_declares_never_bound_fail_under_it_as_one_cause(
    course_folder,
):
    """NumPyro's predator-prey notebook stored an ImportError for its cell of imports, so
    the import declared it (:raises: ImportError); the fresh run raised there too, and six
    later steps failed, each its own NameError (jax, jnp, SVI, pd, ...). One cause: the
    block that raised before it bound them, with what it raised and why."""
    imports = "import math\nfrom math import no_such_function\nimport json\nimport os"
    text = with_steps(imports, "print(json.dumps([1]))", "print(os.sep)")
    text = text.replace("check\n```python", "check\n:raises: ImportError\n```python", 1)
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith(
        "step 2 raised what it declares (:raises:), before it bound what later steps use: "
        "ImportError: cannot import name 'no_such_function' from 'math'"
    )
    assert cause.detail.startswith("steps 3, 4 failed because step 2 raised (names: json, os)")
    # A name the block bound before it raised is no consequence: the later step's own error.
    text = with_steps(imports, "print(math.nothing)", "pass")
    text = text.replace("check\n```python", "check\n:raises: ImportError\n```python", 1)
    (own,) = build_errors(course_folder, text)
    assert own.message.startswith("step 3 failed: AttributeError: module 'math' has no")


def test_files_not_beside_the_lesson_are_one_cause_naming_each(course_folder):
    """NumPyro's Titanic example reads Kaggle's train.csv in one step and test.csv in a
    later one, neither beside the notebook: one message (get the data set), the other
    file named under it with its line."""
    text = with_steps("import csv", "print(open('train.csv').read())", "open('test.csv')")
    (cause,) = build_errors(course_folder, text)
    assert cause.message.startswith("step 3 failed: FileNotFoundError")
    assert "save train.csv beside the lesson" in cause.hint
    at = line_of(text, "open('test.csv')")
    assert cause.detail.startswith(
        "step 4 read files not beside the lesson too (save and list them as well): "
        f"test.csv (line {at})\n"
    )
    # Another failure after a missing file is its own cause still.
    text = with_steps("import csv", "print(open('train.csv').read())", "print(1 / 0)")
    _, own = build_errors(course_folder, text)
    assert own.message.startswith("step 4 failed: ZeroDivisionError")
