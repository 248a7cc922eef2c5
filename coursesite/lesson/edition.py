"""The student edition, applied in one place: a lesson and its record with every reference
solution taken out, before anything renders.

Pages, downloads, notebooks and the search index are then made from what is left, so no
template or download has to remember to leave a solution out: there is none to leave. The
solutions still ran (their record is checked and saved whole); only what readers get loses
them. The full edition's `lesson-student.ipynb` is made from the same stripped lesson.
"""

from __future__ import annotations

import dataclasses

from coursesite.blocks.registry import view_of
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
