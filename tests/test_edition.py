"""The student edition is applied in one place (lesson/edition.py): the lesson and its
record lose every solution before anything renders, whatever block kind holds it."""

import dataclasses
import json
from dataclasses import dataclass

import pytest

from conftest import authoring_example, everything_readable, line_of
from coursesite.blocks.registry import BlockContext, BlockKind, RawBlock, Runs, register, unregister
from coursesite.execution.executionrecord import BlockOutput, ExecutionRecord
from coursesite.lesson.edition import student_lesson, student_record, values_reading_solutions
from coursesite.lesson.model import Code, Exercise
from coursesite.lesson.parse import parse_lesson

SOLUTION = "threes = [ids[i:i + 3] for i in range(0, len(ids), 3)]"


def test_a_student_lesson_has_no_solution_left_and_the_lesson_keeps_its_own(course_folder):
    course = course_folder.write(authoring_example())
    lesson = parse_lesson(course.lessons[0])
    student = student_lesson(lesson)
    [exercise] = student.items(Exercise)
    assert exercise.solution is None and exercise.reasoning is None
    assert exercise.scaffold.source.startswith("threes = ...")
    assert [block.id for block in student.runs] == [
        block.id for block in lesson.runs if not block.solution
    ]
    assert SOLUTION not in student.full_script() and student.edition == "student"
    # The lesson itself is untouched: the build still runs and records the solution.
    assert lesson.items(Exercise)[0].solution is not None and SOLUTION in lesson.full_script()
    assert student_lesson(student) is student


@dataclass(frozen=True)
class Quiz:
    title: str
    anchor: str
    answer: Code | None
    why: str | None


def build_quiz(context: BlockContext, raw: RawBlock) -> Quiz | None:
    code = context.code_part(raw)
    return code and Quiz(raw.title, context.anchor(raw.title), code, "because")


@pytest.fixture
def quiz_kind():
    register(
        BlockKind(
            "quiz",
            Quiz,
            build_quiz,
            stages=("exercise-check",),
            runs=Runs(code="answer", solution=True, with_solution=("why",)),
        )
    )
    yield
    unregister("quiz")


def test_any_kind_that_declares_a_solution_loses_it(quiz_kind, course_folder):
    text = authoring_example().replace(
        "# Evidence\n", ":::{quiz} Sum\n```python\nprint(sum(ids))\n```\n:::\n\n# Evidence\n"
    )
    lesson = parse_lesson(course_folder.write(text).lessons[0])
    [quiz] = student_lesson(lesson).items(Quiz)
    assert quiz.answer is None and quiz.why is None and quiz.title == "Sum"
    assert "sum" not in [block.id for block in student_lesson(lesson).runs]


def test_a_live_value_that_reads_a_solution_fails_the_student_edition_only(course_folder):
    text = authoring_example().replace(
        "Eleven records do not",
        "Threes: {value}`len(threes)`, sizes {value}`sizes`. Eleven records do not",
    )
    course_folder.write(text)
    assert course_folder.cli("-q").returncode == 0
    student = course_folder.cli("-q", "--edition", "student", "--out", "student-site")
    assert student.returncode == 1
    assert (
        f"lesson.md:{line_of(text, 'len(threes)')}: live value `len(threes)` reads threes, "
        "which only a reference solution defines" in student.stderr
    )
    assert "`sizes`" not in student.stderr  # a step defines sizes
    assert not (course_folder.root / "student-site").exists()


def test_the_student_record_has_no_solution_block_and_nothing_a_solution_printed(course_folder):
    text = authoring_example().replace(
        SOLUTION, SOLUTION + '\nprint("what only the solution prints")', 1
    )
    course_folder.write(text)
    assert course_folder.cli("-q").returncode == 0
    student = course_folder.cli("-q", "--edition", "student", "--out", "student-site")
    assert student.returncode == 0, student.stderr
    full_site, student_site = course_folder.root / "site", course_folder.root / "student-site"
    record = "basics/count-batches/record.json"
    # The control: the full edition's record holds the solution's block and its output.
    full = json.loads((full_site / record).read_text())["blocks"]
    assert full["batch-by-three"]["stdout"] == "what only the solution prints\n"
    blocks = json.loads((student_site / record).read_text())["blocks"]
    assert "batch-by-three" not in blocks and "step-2" in blocks
    assert "what only the solution prints" not in everything_readable(student_site)


def record_of(block_ids: list[str]) -> ExecutionRecord:
    blocks = {i: BlockOutput(i, f"{i} printed\n", "", 0.0) for i in block_ids}
    return ExecutionRecord("count-batches", "t", "3.11", {}, "cpu", 0.1, blocks, {"ids": "11"})


def test_the_student_record_keeps_every_block_but_the_solutions(course_folder):
    lesson = parse_lesson(course_folder.write(authoring_example()).lessons[0])
    ids = [block.id for block in lesson.runs]
    assert "batch-by-three" in ids
    record = record_of(ids)
    student = student_record(record, lesson)
    assert list(student.blocks) == [i for i in ids if i != "batch-by-three"]
    assert dataclasses.replace(student, blocks=record.blocks) == record  # nothing else changes
    assert record.blocks["batch-by-three"].stdout == "batch-by-three printed\n"  # not touched
    # A record that holds no solution's output is the student's as it is.
    older = record_of([i for i in ids if i != "batch-by-three"])
    assert student_record(older, lesson) is older


SOLUTION_BINDS = SOLUTION + (
    "\nimport os.path as osp\nimport collections.abc\nfrom math import tau as turn\n"
    "def helper():\n    inner = 1\n    return inner\n"
    "async def ahelper():\n    pass\nclass Helper:\n    pass\nfor k in range(1):\n    pass\n"
    "print(sizes)"
)


def test_each_live_value_that_reads_a_solutions_name_is_an_error_at_its_line(course_folder):
    names = ["threes", "osp", "collections", "turn", "helper", "inner", "ahelper", "Helper", "k"]
    values = " ".join(f"{{value}}`{name}`" for name in names)
    text = authoring_example().replace(SOLUTION, SOLUTION_BINDS, 1)
    text = text.replace(
        "Eleven records do not",
        f"{values} {{value}}`sizes` {{value}}`len(ids)`\n\n"
        "{value}`f(threes)`. Eleven records do not",
    )
    lesson = parse_lesson(course_folder.write(text).lessons[0])
    errors = values_reading_solutions(lesson)
    assert [error.message.split("`")[1] for error in errors] == [*names, "f(threes)"]
    first, last = errors[0], errors[-1]
    assert first.message == (
        "live value `threes` reads threes, which only a reference solution defines: the "
        "student edition would show it"
    )
    assert (first.path, first.line) == (lesson.path, line_of(text, "{value}`threes`"))
    assert last.line == line_of(text, "{value}`f(threes)`")
    assert first.hint == "show a value the steps or experiments compute, or state it in words"
    both = text.replace("{value}`f(threes)`", "{value}`(threes, helper, ids)`")
    [*_, error] = values_reading_solutions(parse_lesson(course_folder.write(both).lessons[0]))
    assert error.message.startswith("live value `(threes, helper, ids)` reads helper, threes,")


def test_a_solution_that_only_reuses_the_steps_names_gives_nothing_away(course_folder):
    text = authoring_example().replace(SOLUTION, SOLUTION + "\nsizes = sizes\nids = ids", 1)
    text = text.replace(
        "Eleven records do not", "{value}`sizes` {value}`ids`. Eleven records do not"
    )
    assert values_reading_solutions(parse_lesson(course_folder.write(text).lessons[0])) == []
