"""What a lesson's record must satisfy before the build shows or saves it, and what it
may lack that `build.py check` reports: the validate stage's checks, one lesson at a time."""

from __future__ import annotations

from pathlib import Path

from coursesite.errors import BuildError
from coursesite.execution.expectedoutputs import output_drift
from coursesite.files import short_digest
from coursesite.lesson.completeness import long_code_lines, unfinished_parts
from coursesite.lesson.lessonbuild import LessonBuild
from coursesite.lesson.model import Figure
from coursesite.outputs.displays import display_errors
from coursesite.outputs.pagefigures import figure_block_errors, figure_data_cut, figure_data_error
from coursesite.outputs.storedoutputs import stored_errors


def figure_errors(item: LessonBuild, cache: Path | None = None) -> list[BuildError]:
    """Figures and displayed values that cannot be drawn or shown, at the line of their
    code (`cache`: the figure cache, which keeps cleaned drawings)."""
    lesson, record = item.parsed(), item.ran()
    found = [figure_data_error(lesson, record, figure) for figure in lesson.items(Figure)]
    stored, shows_stored_image = stored_errors(lesson, record, item.expected_outputs())
    errors = [error for error in found if error]
    errors += figure_block_errors(lesson, record, cache, shows_stored_image)
    return errors + display_errors(lesson, record) + stored


def validation_key(item: LessonBuild, width: int) -> str:
    """What `figure_errors` and `lesson_warnings` depend on (besides the generator, whose
    change empties the parse cache)."""
    stored = item.expected_outputs()
    return short_digest(
        f"{item.outlined().text_digest} {item.record_key()} {width} "
        f"{'' if stored is None else short_digest(stored)}"
    )


def lesson_warnings(
    item: LessonBuild, width: int, reports: Path, cache: Path | None = None
) -> list[BuildError]:
    """Problems that do not stop a build but fail `build.py check` (`reports`: the folder
    for the whole of each long diff, one folder per lesson in it; `cache`: the figure
    cache)."""
    lesson, record, stored = item.parsed(), item.ran(), item.expected_outputs()
    drift = reports / item.slug
    warnings = output_drift(lesson, record, stored, drift) if stored is not None else []
    warnings += unfinished_parts(lesson) + long_code_lines(lesson, width)
    cut = [figure_data_cut(lesson, record, figure, cache) for figure in lesson.items(Figure)]
    warnings += [warning for warning in cut if warning]
    for block in lesson.runnable_blocks():
        output = record.blocks.get(block.id)
        if output is not None and output.stderr.strip():
            first = output.stderr.strip().splitlines()[0]
            warnings.append(
                BuildError(
                    f"{block.label} wrote to stderr: {first}",
                    item.path,
                    block.code.line,
                    hint="usually a library warning, such as a deprecated call: fix its cause",
                )
            )
    return warnings
