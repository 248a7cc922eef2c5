"""Each executed block shows its own output under its code, and a bare last expression
shows its value, as in a notebook: on the page, in lesson.md and in lesson.ipynb."""

from __future__ import annotations

import json

import nbformat
import pytest
from bs4 import BeautifulSoup

from conftest import ROOT, CourseFolder, RecordingProgress, authoring_example, build_errors, line_of

LONG = 60  # lines the second step prints in a loop


def lesson_text() -> str:
    text = authoring_example()
    replacements = [
        # Step 1 ends in a bare expression: its value is shown, main.py prints nothing.
        ("ids = np.arange(11)\n", "ids = np.arange(11)\nids[:3]\n"),
        # Step 2 writes to stderr, prints a long output, and silences its last value.
        (
            'print("PASS: count-batches")\n',
            'import sys\nprint("careful: a short batch", file=sys.stderr)\n'
            f'for i in range({LONG}):\n    print("line", i)\n'
            'print("PASS: count-batches")\nsizes ;  # silenced\n',
        ),
        # The experiment ends in a dict, the solution in a tuple, the figure code in a str.
        (
            'print("Omitted:", np.setdiff1d(ids, kept).tolist())\n',
            'print("Omitted:", np.setdiff1d(ids, kept).tolist())\n'
            '{"kept": len(kept), "omitted": 3}\n',
        ),
        (
            "assert [len(b) for b in threes] == [3, 3, 3, 2]\n",
            "assert [len(b) for b in threes] == [3, 3, 3, 2]\ntuple(len(b) for b in threes)\n",
        ),
        (
            '"xlabel": "batch", "ylabel": "records"}\n',
            '"xlabel": "batch", "ylabel": "records"}\nfigure["kind"]\n',
        ),
    ]
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from coursesite.execution import records
    from coursesite.pipeline import build

    folder = CourseFolder(tmp_path_factory.mktemp("outputs"))
    folder.write(lesson_text())
    build(folder.options(), RecordingProgress())
    site = folder.root / "site"
    page_path = next(site.rglob("count-batches/index.html"))
    page = BeautifulSoup(page_path.read_text(encoding="utf-8"), "html.parser")
    record = records.load(folder.root / "records", "count-batches").record
    return page, page_path.parent, record


def texts(section, selector: str) -> list[str]:
    return [element.get_text() for element in section.select(selector)]


def test_each_block_shows_its_own_output_under_its_code(built):
    page, _, _ = built
    step1, step2 = page.select_one("#step-1"), page.select_one("#step-2")
    assert step1.select(".output-stdout") == []  # step 1 printed nothing
    printed = "".join(texts(step2, ".output-stdout pre"))
    assert printed.startswith("Batch sizes: [4, 4, 3]\nline 0\n")
    assert printed.rstrip().endswith("PASS: count-batches")
    # The output follows the code, inside the step's own section.
    code = step2.select_one(".code-block")
    assert code.find_next(class_="output") is step2.select_one(".output")
    experiment = page.select_one("#drop-the-remainder")
    assert texts(experiment, ".output-stdout pre") == ["Omitted: [8, 9, 10]\n"]
    assert "Batch sizes" not in experiment.get_text() and "Omitted" not in step2.get_text()


def test_stderr_is_shown_apart_and_labelled(built):
    page, _, _ = built
    step2 = page.select_one("#step-2")
    assert texts(step2, ".output-stderr pre") == ["careful: a short batch\n"]
    assert "stderr" in step2.select_one(".output-stderr .output-label").get_text()
    assert "careful" not in "".join(texts(step2, ".output-stdout"))


def test_long_output_folds_after_forty_lines_with_its_count(built):
    page, _, _ = built
    stdout = page.select_one("#step-2 .output-stdout")
    total = LONG + 2
    assert stdout.select_one(".output-fold summary").get_text() == f"Show all {total} lines"
    assert not stdout.select_one("details.output-fold").has_attr("open")
    head = stdout.select_one("pre.output-head").get_text()
    rest = stdout.select_one("details pre").get_text()
    assert len(head.split("\n")) == 40 and len(rest.split("\n")) == total - 40
    assert head + "\n" + rest + "\n" == "".join(
        f"{line}\n"
        for line in ["Batch sizes: [4, 4, 3]"]
        + [f"line {i}" for i in range(LONG)]
        + ["PASS: count-batches"]
    )
    assert page.select_one("#drop-the-remainder .output-fold") is None  # short: not folded


def test_a_bare_last_expression_shows_its_repr(built):
    page, _, record = built
    assert texts(page, "#step-1 .output-display pre") == ["array([0, 1, 2])"]
    assert texts(page, "#drop-the-remainder .output-display pre") == ["{'kept': 8, 'omitted': 3}"]
    assert texts(page, "#batch-by-three .output-display pre") == ["(3, 3, 3, 2)"]
    assert texts(page, "#batch-sizes .output-display pre") == ["'bar'"]
    assert "Out" in page.select_one("#step-1 .output-display .output-label").get_text()
    assert record.blocks["step-1"].display == "array([0, 1, 2])"
    assert record.blocks["step-1"].stdout == ""  # displayed, not printed


def test_a_trailing_semicolon_silences_the_value(built):
    page, _, record = built
    assert page.select("#step-2 .output-display") == []
    assert record.blocks["step-2"].display == ""


def test_main_py_check_passes_with_bare_expressions_and_prints_no_values(built):
    _, folder, record = built  # the build verified main.py against the steps
    main_py = (folder / "main.py").read_text(encoding="utf-8")
    assert "ids[:3]\n" in main_py
    assert "array([0, 1, 2])" not in record.output_of(["step-1", "step-2"])


def test_recorded_execution_folds_the_whole_output_once(built):
    page, _, _ = built
    run = page.select_one(".recorded-run")
    folded = run.select_one("details.main-output")
    assert folded is not None and not folded.has_attr("open")
    assert "(62 lines)" in folded.summary.get_text()
    assert "PASS: count-batches" in folded.select_one(".output pre").get_text()
    # Outside that fold, the run's output appears once on the page: under step 2.
    unfolded = [
        pre
        for pre in page.select(".output pre")
        if "PASS: count-batches" in pre.get_text()
        and pre.find_parent("details", class_="main-output") is None
    ]
    assert len(unfolded) == 1 and unfolded[0].find_parent(id="step-2")


def test_lesson_md_carries_each_blocks_outputs(built):
    _, folder, _ = built
    text = (folder / "lesson.md").read_text(encoding="utf-8")
    assert "Out:\n\n```text\narray([0, 1, 2])\n```" in text
    assert "Out:\n\n```text\n{'kept': 8, 'omitted': 3}\n```" in text
    assert "Out:\n\n```text\n'bar'\n```" in text
    assert "On stderr:\n\n```text\ncareful: a short batch\n```" in text
    assert "line 59\nPASS: count-batches\n```" in text  # lesson.md does not fold
    assert text.count("Out:") == 4


def test_notebook_has_stream_and_execute_result_outputs_and_validates(built):
    _, folder, _ = built
    raw = (folder / "lesson.ipynb").read_text(encoding="utf-8")
    nbformat.validate(nbformat.reads(raw, as_version=4))
    cells = [cell for cell in json.loads(raw)["cells"] if cell["cell_type"] == "code"]
    by_source = {cell["source"].splitlines()[0]: cell["outputs"] for cell in cells}
    step1 = by_source["import numpy as np"]
    assert step1 == [
        {
            "output_type": "execute_result",
            "execution_count": None,
            "metadata": {},
            "data": {"text/plain": "array([0, 1, 2])"},
        }
    ]
    step2 = by_source["batches = [ids[i:i + 4] for i in range(0, len(ids), 4)]"]
    assert [(o["output_type"], o.get("name")) for o in step2] == [
        ("stream", "stdout"),
        ("stream", "stderr"),
    ]
    assert step2[1]["text"] == "careful: a short batch\n"
    experiment = by_source["kept = np.concatenate([b for b in batches if len(b) == 4])"]
    assert experiment[-1]["data"] == {"text/plain": "{'kept': 8, 'omitted': 3}"}


def test_a_failing_last_expression_points_at_its_markdown_line(course_folder):
    text = lesson_text().replace("ids[:3]\n", "ids[99]\n")
    errors = build_errors(course_folder, text)
    assert len(errors) == 1
    assert "IndexError" in errors[0].message
    assert errors[0].line == line_of(text, "ids[99]")


def test_records_without_display_output_load():
    from coursesite.execution import records
    from coursesite.execution.executionrecord import record_from_json, record_to_json

    for path in sorted((ROOT / "records").glob("*.yaml")):
        frozen = records.load(ROOT / "records", path.stem)
        assert frozen is not None and frozen.record.blocks, path
        assert all(block.display == "" for block in frozen.record.blocks.values())
    old = record_to_json(records.load(ROOT / "records", "design-an-input-pipeline").record)
    for block in old["blocks"].values():
        del block["display"]  # as records and caches made before it existed
    assert record_from_json(old).blocks["step-1"].display == ""


def test_logging_and_warnings_show_under_the_step_that_wrote_them_as_stderr(course_folder):
    """Neither is configured: logging's last-resort handler and warnings.showwarning
    write to the sys.stderr of the moment, which is the running step's."""
    text = authoring_example().replace(
        "ids = np.arange(11)\n",
        "ids = np.arange(11)\nimport logging\nlogging.warning('only %d records', 11)\n",
    )
    text = text.replace(
        'print("Batch sizes:", sizes)\n',
        'print("Batch sizes:", sizes)\nimport warnings\nwarnings.warn("a short last batch")\n'
        'warnings.warn("old call", DeprecationWarning)\n',
    )
    course_folder.write(text)
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page_path = course_folder.root / "site" / "basics" / "count-batches" / "index.html"
    page = BeautifulSoup(page_path.read_text(encoding="utf-8"), "html.parser")
    step1, step2 = page.select_one("#step-1"), page.select_one("#step-2")
    assert texts(step1, ".output-stderr pre") == ["WARNING:root:only 11 records\n"]
    warned = "".join(texts(step2, ".output-stderr pre"))
    where = line_of(text, 'warnings.warn("a short last batch")')
    assert f"lesson.md:{where}: UserWarning: a short last batch" in warned
    assert f"lesson.md:{where + 1}: DeprecationWarning: old call" in warned
    assert "only 11 records" not in warned and "short last batch" not in step1.get_text()
    printed = "".join(texts(page, ".output-stdout pre"))  # stderr, never the printed output
    assert "only 11" not in printed and "Warning" not in printed


@pytest.mark.parametrize(
    "value",
    [
        tuple((i, "x" * 20) for i in range(4)),  # diffrax's hessian: a tuple of pairs
        list(range(40)),
        ["y" * 100, 1],  # a long string is never split
        "z" * 100,
        {"alpha": 1, "beta": (2.5, "three")},
        [(1, 2)] * 30,
    ],
)
def test_a_cells_last_value_is_laid_out_as_a_notebook_shows_it(value):
    """The build shows a step's last value as IPython does (a long container an item a
    line), so the page reads like the notebook and its stored output is no drift."""
    from IPython.lib.pretty import pretty

    from coursesite.execution.runner import shown_value

    assert shown_value(value) == pretty(value)
