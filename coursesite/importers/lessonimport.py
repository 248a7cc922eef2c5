"""A notebook's cells become the text of a lesson (importcommand.py writes and lists it).

Markdown cells before the first code cell are the Understand stage; every code cell is a
build step, titled from the nearest heading above it, with the Markdown between code cells
as the stage's prose; a cell whose stored run raised stays a step, declaring what it
raises. Headings move down so that none is level 1 (those are our stages). Magics become
the Python that keeps their meaning (magics.py). The stored outputs go into
`<slug>.expected.yaml` (see expectedoutputs.py). Stages a notebook cannot fill are left
empty; `build.py check` says which to fill. Here the title, the heading levels and the
labels are settled for the whole notebook, and the summary and front matter at the end;
cellconversion.py takes the cells one by one in between.
"""

from __future__ import annotations

import dataclasses

from coursesite.execution.expectedoutputs import dump_expected
from coursesite.importers.cellconversion import CellConversion
from coursesite.importers.clockreads import clock_patterns
from coursesite.importers.devicecount import DeviceNeed, device_note
from coursesite.importers.equationlabels import equations_apart
from coursesite.importers.glue import Glued
from coursesite.importers.htmlanchors import anchors_as_targets
from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.lessontext import front_matter, lesson_text, title_summary
from coursesite.importers.mystdirectives import keeps_title
from coursesite.importers.notebookcells import Cell
from coursesite.importers.python2 import is_python2
from coursesite.importers.references import NotebookLabels, OtherSites
from coursesite.importers.timingmagics import TIMING_VOLATILE
from coursesite.importers.titles import (
    heading_title,
    headings,
    notebook_title,
    summary_of,
    title_heading,
)
from coursesite.lesson.model import OUTPUT_VARIES
from coursesite.markup.markdown import slugify

__all__ = ["ImportedLesson", "convert", "lesson_slug", "notebook_title"]


def convert(
    cells: list[Cell],
    title: str,
    source: str,
    expected_name: str,
    sites: OtherSites | None = None,
) -> ImportedLesson:
    """The lesson for `cells`; `source` names the notebook in notes and outputs; `sites`
    are the other sites (lessons.yaml `references:`) its references may link to."""
    lesson = ImportedLesson()
    cells = equations_apart(anchors_as_targets(cells, lesson.notes), lesson.notes)
    markdown, title_cell = _without_title(cells, title, lesson)
    labels = NotebookLabels.of(
        [cell.source for cell in markdown if cell.kind == "markdown"], keeps_title
    )
    for cell in cells:
        if cell.kind == "code" and cell.figure_label:
            labels.add_figure(cell.figure_label, cell.alt)
    lesson.python2 = is_python2([cell.source for cell in cells if cell.kind == "code"])
    lesson.devices = DeviceNeed.of(cells)
    lesson.notes += device_note(lesson.devices)
    conversion = CellConversion(
        lesson,
        labels,
        Glued.of([cell.source for cell in cells if _runs_through(cell)]),
        sites,
        _heading_shift(markdown),
        expected_name,
        title_cell=title_cell,
    )
    for cell in markdown:
        conversion.add(cell)
    conversion.finish()
    lesson.text = _lesson_text(conversion, title)
    if conversion.stored:
        lesson.expected = dump_expected(source, conversion.stored)
    return lesson


def _lesson_text(conversion: CellConversion, title: str) -> str:
    """The lesson's Markdown: front matter (summary, volatile lines), then its stages."""
    lesson, number = conversion.lesson, conversion.number
    if not number:
        lesson.notes.append(
            "no cell of the notebook runs: the page shows its code, runs none, and has no "
            "main.py; to make it a lesson that runs, write steps (docs/authoring.md)"
        )
    # The opening text's first telling sentence, else the first after it (all prose, in order).
    summary = summary_of(conversion.prose)
    if not summary:
        summary = title_summary(title)
        lesson.notes.append(
            "the notebook has no sentence of prose to summarise it: the summary repeats the "
            "title; write one line on what the lesson builds (summary:)"
        )
    expected = conversion.expected_name if conversion.stored else None
    front = front_matter(title, summary, conversion.understand, number, expected)
    clocked = clock_patterns([(where, code) for _, where, code in lesson.steps])
    lesson.notes += [_clock_note(where, pattern) for where, pattern in clocked]
    varying = {where for where, pattern in clocked if not pattern}
    for number, where, _ in lesson.steps:
        if where in varying:
            conversion.add_step_tag(number, OUTPUT_VARIES)
    volatile = (TIMING_VOLATILE if lesson.timed else []) + [p for _, p in clocked if p]
    if volatile:
        front["volatile"] = volatile
    return lesson_text(front, conversion.understand, conversion.build_run)


def _clock_note(where: str, pattern: str) -> str:
    made = (
        f"{where}: it prints what the clock measured, or a value made from it (a seed of "
        "today's date, random numbers numba draws where no seed reaches), which differs from "
        "run to run"
    )
    if pattern:
        return f"{made}: its line is volatile ({pattern})"
    return (
        f"{made}, in lines no volatile: pattern can tell (a table of timings): its step is "
        f"tagged {OUTPUT_VARIES}, and no run's output of it is compared"
    )


def _runs_through(cell: Cell) -> bool:
    """Whether a code cell's every line runs in the lesson: what it glues is there after."""
    stops = cell.raises or {"skip-execution", "raises-exception"} & set(cell.tags)
    return cell.kind == "code" and not stops


def _without_title(cells: list[Cell], title: str, lesson: ImportedLesson) -> tuple[list[Cell], str]:
    """The cells without the heading the title comes from, which the report names when it
    is not a level-1 heading, or when there is none (the title is the file's name); and
    the cell it stood in ("" for none)."""
    found = title_heading(cells)
    if found is None or heading_title(found.text) != title:
        lesson.notes.append(
            f"the notebook has no heading before its prose to take a title from: the title, "
            f"'{title}', is made from the file's name; set a better one (title:)"
        )
        return cells, ""
    cell = cells[found.cell]
    if found.level > 1:
        lesson.notes.append(
            f"{cell.where}: the title, '{title}', is the notebook's first heading, of level "
            f"{found.level} (it has no level-1 heading before its prose): check it (title:)"
        )
    # Blank in place of the heading: a line's place in the source stays where_in's to find.
    lines = cell.source.splitlines()
    lines[found.lines.start : found.lines.stop] = [""] * len(found.lines)
    untitled = dataclasses.replace(cell, source="\n".join(lines))  # its notes kept
    return [untitled if number == found.cell else c for number, c in enumerate(cells)], cell.where


def _heading_shift(cells: list[Cell]) -> int:
    levels = [level for c in cells if c.kind == "markdown" for _, level, _ in headings(c.source)]
    return 2 - min(levels) if levels else 0


def lesson_slug(title: str) -> str:
    return slugify(title)[:60].strip("-") or "lesson"
