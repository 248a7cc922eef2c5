"""The images an imported notebook's prose links to, settled before the lesson is written.

A linked file not beside the lesson yet but beside the notebook is copied; one the
notebook's own code writes (a GIF it saves, then shows) is listed under `writes:`, and the
build publishes it from the run; one found nowhere is a note: the author may copy it in.
An image the site may not publish (private, outside the course, not an image) stops the
import, by cell.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from coursesite.errors import BuildError, BuildErrors
from coursesite.importers.datafiles import files_written
from coursesite.importers.galleryfigures import ExampleFigure, example_figure
from coursesite.importers.lessonimport import ImportedLesson
from coursesite.lesson.frontmatter import written_name
from coursesite.outputs.assets import (
    IMAGE_TYPES,
    MissingAsset,
    RefusedAsset,
    check_image_file,
    published_image,
    read_regular,
)


@dataclass
class LinkedImages:
    copies: dict[Path, bytes] = field(default_factory=dict)  # course path -> content
    written: list[str] = field(default_factory=list)  # for `writes:`


def settle_linked_images(
    lesson: ImportedLesson, folder: Path, root: Path, notebook: Path
) -> LinkedImages:
    """What becomes of each image the lesson links to (see the module's text); BuildErrors,
    by cell, for each the lesson could not publish, attachments included."""
    refusals = list(lesson.refusals)
    settled = LinkedImages()
    code_writes = files_written(lesson.steps)
    for src, where in lesson.linked_images:
        target = Path(os.path.normpath(folder / src))
        shown = target.relative_to(root).as_posix() if target.is_relative_to(root) else src
        try:
            check_image_file(folder / src, root, src)
        except MissingAsset:
            if target in settled.copies or src in settled.written:  # linked again
                continue
            content = _image_beside(notebook.parent / src, src, where, refusals)
            if content and target.is_relative_to(root):
                settled.copies[target] = content
                lesson.notes.append(f"{where}: image {src} copied from beside the notebook")
            elif _written_by_code(src, code_writes):
                settled.written.append(src)
                lesson.notes.append(
                    f"{where}: image {src} is one the notebook's code writes: listed under "
                    "writes:, the build publishes it from the lesson's run"
                )
            elif elsewhere := _written_outside(src, code_writes):
                lesson.notes.append(
                    f"{where}: image {src} is the file the notebook's code writes to "
                    f"{elsewhere}, outside the lesson's folder, where the build's run cannot "
                    f"write: make the code write it to {src} (its folder made first) and list "
                    "it under writes:"
                )
            elif example := example_figure(src, notebook.parent):
                drawn = example.png if target.is_relative_to(root) else None
                if drawn is not None:
                    settled.copies[target] = drawn
                said = _example_said(example, src, shown, kept=drawn is not None)
                lesson.notes.append(f"{where}: {said}")
            else:
                lesson.notes.append(
                    f"{where}: image {src} is not beside the lesson: copy it to {shown}"
                )
        except RefusedAsset as refused:
            refusals.append((f"{where}: {refused.message}", refused.hint))
    if refusals:
        raise BuildErrors([BuildError(m, notebook, hint=hint) for m, hint in refusals])
    return settled


def _written_by_code(src: str, code_writes: set[str]) -> bool:
    name = written_name(src)
    written = {written_name(path) for path in code_writes}
    return name is not None and name in written and Path(name).suffix.lower() in IMAGE_TYPES


def _example_said(example: ExampleFigure, src: str, shown: str, kept: bool) -> str:
    """The report's line for a figure sphinx-gallery draws from another example."""
    said = f"image {src} is a figure sphinx-gallery draws from the example {example.figure}"
    if example.script is None:
        return (
            f"{said} when it builds its site, in no repository, and the checkout does not "
            f"hold the example: save the figure at {shown}, or link to the example instead"
        )
    if kept:
        return f"{said}: drawn by running {example.script.name}, as it does"
    return (
        f"{said}: running {example.script.name} did not draw it "
        f"({example.problem or 'its place is outside the course'}): save the figure at "
        f"{shown}, or link to the example instead"
    )


def _written_outside(src: str, code_writes: set[str]) -> str | None:
    """The path outside the lesson's folder at which the code writes a file of the image's
    name (a gallery script saving into its documentation's `_static/`), if it does."""
    name = Path(src).name
    return next(
        (
            path
            for path in sorted(code_writes)
            if Path(path).name == name and written_name(path) is None
        ),
        None,
    )


def _image_beside(source: Path, src: str, where: str, refusals: list) -> bytes | None:
    """The image the notebook links to, read from beside it (its repository's checkout),
    when it is one a page may publish; a refusal when it is not."""
    if not source.is_file():
        return None
    try:
        content = read_regular(source)
        published_image(content, source.suffix, src, "check")
    except RefusedAsset as refused:
        refusals.append((f"{where}: {refused.message}", refused.hint))
        return None
    return content
