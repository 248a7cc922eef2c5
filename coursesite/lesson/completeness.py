"""What a lesson still lacks or overdoes: stages with nothing in them, the `TODO:`
placeholders that `build.py import` leaves where a notebook cannot say (outcomes,
predictions), and code lines too long for the page's column.

None stops a build, so an imported lesson can be previewed at once; all are warnings, so
`build.py check` fails until the author has seen to them.
"""

from __future__ import annotations

import re

from coursesite.errors import BuildError
from coursesite.lesson.model import Check, Lesson, Prose

PLACEHOLDER = "TODO:"
# A placeholder opens a value, a paragraph or an image's alt text (`outcomes:\n  - 'TODO:
# ...'`, `![TODO: describe x](x.png)`); a `# TODO:` comment in a scaffold is an instruction
# to the learner, not one.
_BEFORE_PLACEHOLDER = re.compile(r"[ \t]*(?:- |[\w-]+:[ \t]+|:[\w-]+:[ \t]+|.*!\[)?['\"]?")


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
    warnings += [
        BuildError(
            f"answer {number} of the check '{check.question}' says nothing to whoever picks it",
            lesson.path,
            check.line,
            hint="indent a paragraph under the answer that says why it is right or not "
            "(see 'Checks' in docs/authoring.md)",
        )
        for check in lesson.items(Check)
        for number, choice in enumerate(check.choices, start=1)
        if not choice.feedback
    ]
    # str.find, not a loop over every line: this runs for every lesson on every build.
    text = lesson.text
    position = text.find(PLACEHOLDER)
    while position != -1:
        start = text.rfind("\n", 0, position) + 1
        if _BEFORE_PLACEHOLDER.fullmatch(text, start, position):
            end = text.find("\n", position)
            warnings.append(
                BuildError(
                    "placeholder left to fill in: "
                    + text[start : end if end != -1 else None].strip(),
                    lesson.path,
                    text.count("\n", 0, start) + 1,
                    hint="replace the TODO text with what the lesson needs",
                )
            )
        position = text.find(PLACEHOLDER, position + 1)
    return warnings


_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*(\{?)", re.M)  # group 2: a MyST directive


def long_code_lines(lesson: Lesson, width: int) -> list[BuildError]:
    """Lines of fenced code (any language) longer than `width` characters: on the page
    they scroll sideways, and on a phone most of them is out of sight."""
    text = lesson.text
    long_lines = [m.start() for m in re.finditer(rf"^.{{{width + 1},}}$", text, re.M)]
    if not long_lines:
        return []
    inside: list[tuple[int, int]] = []  # [start, end) of each code fence's contents
    opened: tuple[str, int, bool] | None = None  # marker, where its contents start, is code
    for marker in _FENCE.finditer(text):
        if opened is None:
            start = text.find("\n", marker.end()) + 1 or len(text)
            opened = (marker.group(1), start, not marker.group(2))  # ```{note} holds prose
        elif marker.group(1).startswith(opened[0]):
            if opened[2]:
                inside.append((opened[1], marker.start()))
            opened = None
    warnings = []
    for start in long_lines:
        if any(first <= start < end for first, end in inside):
            end = text.find("\n", start)
            length = (len(text) if end == -1 else end) - start
            warnings.append(
                BuildError(
                    f"code line of {length} characters, longer than {width}",
                    lesson.path,
                    text.count("\n", 0, start) + 1,
                    hint="wrap it (the page's code column holds "
                    f"{width}; settings.code_width sets the limit)",
                )
            )
    return warnings
