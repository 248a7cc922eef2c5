"""What a lesson still lacks: stages with nothing in them, and the `TODO:` placeholders
that `build.py import` leaves where a notebook cannot say (outcomes, predictions).

Neither stops a build, so an imported lesson can be previewed at once; both are warnings,
so `build.py check` fails until the author has filled them in.
"""

from __future__ import annotations

import re

from .errors import BuildError
from .model import Lesson, Prose

PLACEHOLDER = "TODO:"
# A placeholder opens a value or a paragraph (`outcomes:\n  - 'TODO: ...'`); a `# TODO:`
# comment in a scaffold is an instruction to the learner, not one.
_PLACEHOLDER_LINE = re.compile(r"^\s*(?:- |[\w-]+:\s+|:[\w-]+:\s+)?['\"]?TODO:")


def unfinished_parts(lesson: Lesson) -> list[BuildError]:
    warnings = [
        BuildError(
            f"stage '{stage.title}' is empty",
            lesson.path,
            stage.line,
            hint="each of the five stages has a part to play (docs/authoring.md); fill it in",
        )
        for stage in lesson.stages
        if not any(not isinstance(item, Prose) or item.markdown.strip() for item in stage.items)
    ]
    for number, line in enumerate(lesson.text.splitlines(), start=1):
        if _PLACEHOLDER_LINE.match(line):
            warnings.append(
                BuildError(
                    "placeholder left to fill in: " + line.strip(),
                    lesson.path,
                    number,
                    hint="replace the TODO text with what the lesson needs",
                )
            )
    return warnings
