"""Where a line of an imported step's code sits in the lesson file the import wrote.

The import's report names each finding at its lesson line, so the author can go straight
to it; the steps are written as `:::{step} N. Title` followed by a code fence.
"""

from __future__ import annotations


def lesson_line(text: str, number: int, offset: int) -> int:
    """The line of `text` (from 1) holding line `offset` (from 0) of step `number`'s code."""
    lines = text.splitlines()
    start = next(at for at, line in enumerate(lines) if line.startswith(f":::{{step}} {number}. "))
    fence = next(at for at in range(start, len(lines)) if lines[at].startswith("```"))
    return fence + 2 + offset
