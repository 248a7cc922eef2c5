"""What a lesson still lacks or overdoes: stages with nothing in them, the `TODO:`
placeholders that `build.py import` leaves where a notebook cannot say (outcomes,
predictions), and code lines too long for the page's column.

None stops a build, so an imported lesson can be previewed at once; all are warnings, so
`build.py check` fails until the author has seen to them.
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
    if PLACEHOLDER not in lesson.text:  # nearly every lesson: skip reading it line by line
        return warnings
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


_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def long_code_lines(lesson: Lesson, width: int) -> list[BuildError]:
    """Lines of fenced code (any language) longer than `width` characters: on the page
    they scroll sideways, and on a phone most of them is out of sight."""
    lines = lesson.text.splitlines()
    if max(map(len, lines), default=0) <= width:  # nearly every lesson
        return []
    warnings = []
    fence = ""
    for number, line in enumerate(lines, start=1):
        marker = _FENCE.match(line)
        if marker and (not fence or marker.group(1).startswith(fence)):
            fence = "" if fence else marker.group(1)
        elif fence and len(line) > width:
            warnings.append(
                BuildError(
                    f"code line of {len(line)} characters, longer than {width}",
                    lesson.path,
                    number,
                    hint="wrap it (the page's code column holds "
                    f"{width}; settings.code_width sets the limit)",
                )
            )
    return warnings
