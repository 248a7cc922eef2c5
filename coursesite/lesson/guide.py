"""A phase's study guide: plain Markdown, parsed as a lesson's prose is, whose math and
lesson links are checked; what only lessons may hold (live values, targets, label
references) is an error at its line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from coursesite.errors import BuildErrors, course_text
from coursesite.lesson.model import LessonLink, Prose
from coursesite.lesson.parse import LessonParser

if TYPE_CHECKING:
    from coursesite.cache.caches import FormulaMemo


def parse_guide(
    path: Path,
    formulas: FormulaMemo | None = None,
) -> tuple[Prose, list[LessonLink]]:
    """A phase study guide: plain Markdown whose math and lesson links are checked."""
    text = course_text(path.read_bytes(), path)
    parser = LessonParser(path, text.splitlines(), formulas=formulas)
    parser.scan_prose(text, 1)
    for value in parser.values:
        parser.error(
            f"live value `{value.expression}` in a phase guide",
            value.line,
            "live values belong in lessons, whose code computes them",
        )
    for target, line in parser.targets.items():
        parser.error(
            f"target ({target})= in a phase guide",
            line,
            "targets go in lessons; link to a lesson with {doc}`slug` or [text](lesson:slug)",
        )
    for ref in parser.label_refs:
        parser.error(
            f"{{ref}}`{ref.label}` in a phase guide",
            ref.line,
            "phase guides link with [text](lesson:slug#anchor) or {doc}`slug`",
        )
    if parser.problems():
        raise BuildErrors(parser.problems())
    return Prose(text, 1), parser.links
