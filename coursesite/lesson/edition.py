"""The student edition, applied in one place: a lesson and its record with every reference
solution taken out, before anything renders.

Pages, downloads, notebooks and the search index are then made from what is left, so no
template or download has to remember to leave a solution out: there is none to leave. The
solutions still ran (their record is checked and saved whole); only what readers get loses
them. The full edition's `lesson-student.ipynb` is made from the same stripped lesson.
"""

from __future__ import annotations

import ast
import dataclasses

from coursesite.blocks.registry import view_of
from coursesite.errors import BuildError
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.lesson.model import Item, Lesson

STUDENT = "student"


def student_lesson(lesson: Lesson) -> Lesson:
    """`lesson` without its solutions: each solution item's code (and what goes with it)
    emptied, and the solution blocks gone from what runs."""
    if lesson.edition == STUDENT:
        return lesson
    stages = [
        dataclasses.replace(stage, items=[_without_solution(item) for item in stage.items])
        for stage in lesson.stages
    ]
    runs = [block for block in lesson.runs if not block.solution]
    return dataclasses.replace(lesson, stages=stages, runs=runs, edition=STUDENT)


def student_record(record: ExecutionRecord, lesson: Lesson) -> ExecutionRecord:
    """`record` without the outputs of `lesson`'s solution blocks."""
    solutions = {block.id for block in lesson.runs if block.solution}
    if not solutions & set(record.blocks):
        return record
    blocks = {key: output for key, output in record.blocks.items() if key not in solutions}
    return dataclasses.replace(record, blocks=blocks)


def _without_solution(item: Item) -> Item:
    try:
        runs = view_of(item).runs
    except LookupError:  # not a block kind's item: nothing of it runs
        return item
    if runs is None or not runs.solution:
        return item
    emptied = dict.fromkeys((runs.code, *runs.with_solution))
    return dataclasses.replace(item, **emptied)  # type: ignore[arg-type]


def values_reading_solutions(lesson: Lesson) -> list[BuildError]:
    """An error for each live value that reads a name only a solution defines: its text on
    the page would give the solution away in the student edition."""
    defined_elsewhere = set().union(
        *(_assigned(b.code.source) for b in lesson.runs if not b.solution)
    )
    only_solutions = set().union(*(_assigned(b.code.source) for b in lesson.runs if b.solution))
    only_solutions -= defined_elsewhere
    errors = []
    for value in lesson.values:
        read = _read(value.expression) & only_solutions
        if read:
            errors.append(
                BuildError(
                    f"live value `{value.expression}` reads {', '.join(sorted(read))}, which "
                    "only a reference solution defines: the student edition would show it",
                    lesson.path,
                    value.line,
                    hint="show a value the steps or experiments compute, or state it in words",
                )
            )
    return errors


def _assigned(source: str) -> set[str]:
    """The names a block of code binds at its top level and below (assignments, imports,
    definitions, loop targets)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _read(expression: str) -> set[str]:
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return set()  # reported by the parse stage
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
