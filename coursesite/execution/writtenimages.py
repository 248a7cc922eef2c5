"""The images a lesson's code writes and its prose shows (front matter `writes:`), taken from
the folder the code ran in into the record, since that folder is gone once the run ends.

The record keeps them as base64, as it keeps a display's image: a cached or frozen record
brings them back without a run. What they hold is checked where they are published
(outputs/images.py), as for any image of a lesson.
"""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path

from coursesite.config.paths import is_inside
from coursesite.errors import BuildError
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.lesson.frontmatter import written_name
from coursesite.lesson.model import Lesson
from coursesite.outputs.assets import RefusedAsset, read_regular

# An image larger than this is more than a page should make its readers load.
WRITTEN_IMAGE_LIMIT = 20 * 1024 * 1024


def shown_writes(lesson: Lesson) -> dict[str, int]:
    """The images of `writes:` the prose shows, by run name, with the first line showing each."""
    shown: dict[str, int] = {}
    for image in lesson.images:
        if image.written:
            shown.setdefault(written_name(image.path) or image.path, image.line)
    return shown


def with_written_images(
    record: ExecutionRecord, writes: dict[str, int], work: Path, lesson: Path
) -> ExecutionRecord:
    """`record` with the images named in `writes` (run name -> the lesson line that shows
    it) as the run left them in `work`; BuildError at that line for one it did not leave."""
    if not writes:
        return record
    written = {}
    for name, line in writes.items():
        written[name] = base64.b64encode(_written_image(work, name, line, lesson)).decode()
    return dataclasses.replace(record, written=written)


def _written_image(work: Path, name: str, line: int, lesson: Path) -> bytes:
    path = work / name
    problem = None
    if not path.exists():
        problem = f"the lesson's code did not write '{name}', which this line shows"
        hint = (
            "make the code save the image under this path, relative to the lesson's folder "
            "(the folder the code runs in), or take the name out of 'writes:'"
        )
    elif not is_inside(path, work):
        problem = f"'{name}' is a link out of the folder the lesson's code ran in"
        hint = "write the image itself there, not a symbolic link to it"
    else:
        try:
            content = read_regular(path)
        except RefusedAsset as refused:
            problem, hint = f"the image the code wrote, {refused.message}", refused.hint
        else:
            if len(content) <= WRITTEN_IMAGE_LIMIT:
                return content
            problem = f"the image '{name}' the code wrote is {len(content) >> 20} MB"
            hint = "write a smaller image (fewer frames, fewer pixels): a page loads it whole"
    raise BuildError(problem, lesson, line, hint=hint)
