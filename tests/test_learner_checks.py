"""Exercises a learner can check: the build proves each check, the zip's check.py runs them.

The real course's zips are unpacked and run as a learner would: as downloaded every
exercise fails; with the reference solutions written into the exercise files, every one
passes.
"""

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from conftest import authoring_example, build_errors, line_of
from coursesite.config.manifest import load_course
from coursesite.lesson.model import Exercise
from coursesite.lesson.parse import parse_lesson

ROOT = Path(__file__).resolve().parents[1]
# Every lesson of the course: each of its exercises has a check.
LESSONS = [ref.slug for ref in load_course(ROOT / "lessons.yaml").lessons]


@pytest.fixture
def site(real_site) -> Path:
    return real_site


def unpacked(site: Path, slug: str, into: Path) -> Path:
    with zipfile.ZipFile(site / "recovery" / slug / f"{slug}.zip") as archive:
        archive.extractall(into)
    return into


def check_py(folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "check.py", *arguments],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )


def exercises_of(slug: str) -> list[Exercise]:
    course = load_course(ROOT / "lessons.yaml")
    return parse_lesson(course.lesson(slug)).items(Exercise)


@pytest.mark.parametrize("slug", LESSONS)
def test_every_exercise_fails_as_downloaded_and_passes_with_its_reference_solution(
    site, slug, tmp_path
):
    folder = unpacked(site, slug, tmp_path)
    exercises = exercises_of(slug)
    files = sorted((folder / "exercises").glob("*.py"))
    assert len(files) == len(exercises) >= 3  # every exercise of the phase has a check
    as_downloaded = check_py(folder)
    assert as_downloaded.returncode == 1, as_downloaded.stdout + as_downloaded.stderr
    assert as_downloaded.stderr.startswith("check.py: running main.py first")
    verdicts = as_downloaded.stdout.splitlines()[:-1]
    assert [line.split()[:2] for line in verdicts] == [
        ["FAIL", f"exercises/{file.name}:"] for file in files
    ]
    for exercise, file in zip(exercises, files, strict=True):
        assert exercise.scaffold.source.strip() in file.read_text()
        assert exercise.solution is not None
        file.write_text(exercise.solution.source, encoding="utf-8")
    solved = check_py(folder)
    assert solved.returncode == 0, solved.stdout + solved.stderr
    assert [line.split()[0] for line in solved.stdout.splitlines()[:-1]] == ["PASS"] * len(files)
    assert f"{len(files)} of {len(files)} exercise(s) pass" in solved.stdout
    # What check.py prints never shows a solution's code or what it printed.
    for exercise in exercises:
        assert exercise.solution is not None
        for line in exercise.solution.source.splitlines():
            if len(line.strip()) > 12:
                assert line.strip() not in as_downloaded.stdout + solved.stdout


def test_one_exercise_is_checked_alone_and_a_wrong_answer_says_what_is_missing(site, tmp_path):
    folder = unpacked(site, "design-an-input-pipeline", tmp_path)
    first, second = sorted((folder / "exercises").glob("*.py"))[:2]
    # The fingerprint exercise, answered except that the edited label is left unchanged.
    second.write_text(
        "copied = dataset_digest(features.copy(), labels.copy())\n"
        "reordered = dataset_digest(features[::-1], labels[::-1])\n"
        "edited_labels = labels.copy()\n"
        "edited = dataset_digest(features, edited_labels)\n",
        encoding="utf-8",
    )
    alone = check_py(folder, f"exercises/{second.name}")
    assert alone.returncode == 1
    assert alone.stdout.splitlines() == [
        f"FAIL  exercises/{second.name}: edited: one changed label should change the fingerprint",
        "0 of 1 exercise(s) pass",
    ]
    assert first.name not in alone.stdout
    unknown = check_py(folder, "exercises/no-such.py")
    assert unknown.returncode == 2 and first.name in unknown.stdout


def test_the_notebook_has_a_check_cell_under_each_attempt_and_the_page_shows_the_check(site):
    folder = site / "recovery" / "design-an-input-pipeline"
    notebook = nbformat.read(folder / "lesson-student.ipynb", as_version=4)
    tags = [cell.metadata.get("tags", []) for cell in notebook.cells]
    scaffolds = [i for i, t in enumerate(tags) if "exercise-scaffold" in t]
    assert len(scaffolds) == 3
    for index in scaffolds:
        check = notebook.cells[index + 1]
        assert "exercise-check" in check.metadata.tags and check.outputs == []
        assert check.source.endswith('print("PASS")') and "assert" in check.source
    page = (folder / "index.html").read_text()
    assert page.count('class="attempt-check"') == 3
    assert "python check.py exercises/1-pad-the-short-batch-and-mask-the-mean.py" in page
    assert "should hold four labels" in page  # the check's code, shown under the scaffold


def with_check(check: str, solution: str | None = None) -> str:
    """The documented example lesson with its exercise's check (and solution) replaced."""
    text = authoring_example()
    text = re.sub(r"```python check\n.*?```\n", f"```python check\n{check}```\n", text, flags=re.S)
    if solution is not None:
        text = re.sub(
            r"```python solution\n.*?```\n",
            f"```python solution\n{solution}```\n",
            text,
            flags=re.S,
        )
    return text


@pytest.mark.parametrize(
    ("check", "problem"),
    [
        ('assert len(ids) == 11, "eleven IDs"', "passes on the starter scaffold"),
        (
            'assert len(threes) == 3, "three batches"',
            "fails after the reference solution: AssertionError: three batches",
        ),
    ],
)
def test_a_check_that_cannot_tell_an_attempt_from_a_solution_is_an_error_at_its_line(
    course_folder, check, problem
):
    text = with_check(check + "\n")
    errors = build_errors(course_folder, text)
    assert len(errors) == 1
    assert errors[0].line == line_of(text, check)
    assert problem in errors[0].message
    assert "check of 'Batch by three'" in errors[0].message


def test_a_solution_that_needs_an_experiments_names_fails_its_check_as_check_py_would(
    course_folder,
):
    # `kept` is made by the example's experiment, which check.py never runs.
    solution = "threes = [ids[i:i + 3] for i in range(0, len(kept) + 3, 3)]\n"
    text = with_check("assert len(threes) == 4\n", solution)
    errors = build_errors(course_folder, text)
    assert len(errors) == 1
    assert "NameError: name 'kept' is not defined" in errors[0].message
    assert "main.py and the reference solution alone" in errors[0].hint


def test_the_student_edition_keeps_the_check_and_loses_the_solution(course_folder):
    course_folder.write(authoring_example())
    built = course_folder.cli("-q", "--edition", "student")
    assert built.returncode == 0, built.stderr
    lesson = course_folder.root / "site" / "basics" / "count-batches"
    page = (lesson / "index.html").read_text()
    assert 'class="attempt-check"' in page and "joined: the IDs in order" in page
    assert "range(0, len(ids), 3)]" not in page  # the solution's line
    with zipfile.ZipFile(lesson / "count-batches.zip") as archive:
        names = archive.namelist()
        assert {"check.py", "exercises/1-batch-by-three.py", "checks/1-batch-by-three.py"} <= set(
            names
        )


def test_a_changed_check_runs_the_lesson_again(course_folder):
    course_folder.write(authoring_example())
    assert course_folder.cli("-q").returncode == 0
    course_folder.write(with_check("assert len(threes) == 4\n"))
    again = course_folder.cli()
    assert again.returncode == 0, again.stderr
    assert "executed" in again.stdout and "check" in again.stdout


def test_an_exercise_that_breaks_main_pys_names_does_not_spoil_the_next(site, tmp_path):
    folder = unpacked(site, "design-an-input-pipeline", tmp_path)
    first, second, _ = sorted((folder / "exercises").glob("*.py"))
    first.write_text("labels = None\nfingerprint = None\n", encoding="utf-8")
    (second_solution,) = [e.solution for e in exercises_of("design-an-input-pipeline")][1:2]
    assert second_solution is not None
    second.write_text(second_solution.source, encoding="utf-8")
    checked = check_py(folder, f"exercises/{first.name}", f"exercises/{second.name}")
    verdicts = checked.stdout.splitlines()
    assert verdicts[0].startswith(f"FAIL  exercises/{first.name}: ")
    assert verdicts[1] == f"PASS  exercises/{second.name}"  # main.py's labels, unspoilt
