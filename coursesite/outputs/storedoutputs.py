"""What a notebook stored that the fresh run shows nothing of, as a page shows it.

`build.py import` keeps a notebook's stored outputs in the lesson's expected-outputs file
(execution/expectedoutputs.py). Where a step's fresh run shows nothing of a part of them
(`unshown`: a figure the cell closed, a display only a kernel shows, text the code no longer
prints), the page shows that part under the step, labelled as the notebook's stored output
and not this build's (the template `stored_output.html`). Stored displays are as untrusted as
fresh ones: they pass the same renderers (displays.py), so the same allowlists, and an
image needs the step's `:alt:` text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coursesite.errors import BuildError
from coursesite.execution.executionrecord import ExecutionRecord
from coursesite.execution.expectedoutputs import read_expected, unshown
from coursesite.lesson.model import Lesson
from coursesite.outputs.displays import DisplayContext, DisplayView, UnshowableOutput, bundle_view


@dataclass(frozen=True)
class StoredView:
    """The parts of a block's stored output that its fresh run shows nothing of."""

    notebook: str  # the notebook's file name
    cell: str  # where the notebook holds it ("cell 5"); "" in older files
    stdout: str = ""
    stderr: str = ""
    value: str = ""  # the text/plain of the stored value
    displays: tuple[DisplayView, ...] = ()

    @property
    def shows_image(self) -> bool:
        return any(view.kind in ("image", "svg") for view in self.displays)


def stored_views(
    lesson: Lesson, record: ExecutionRecord, data: bytes | None
) -> dict[str, StoredView]:
    """Block id -> what the page shows of its stored output, for each block whose fresh
    run shows nothing of a part of it. A stored display that cannot be shown raises the
    BuildError that `stored_errors` reports first."""
    views, errors = _views(lesson, record, data)
    if errors:
        raise errors[0]
    return views


def stored_errors(
    lesson: Lesson, record: ExecutionRecord, data: bytes | None
) -> tuple[list[BuildError], set[str]]:
    """Stored displays a page cannot show, or images whose step has no text alternative,
    at the step's code; and the ids of the blocks that show a stored image."""
    views, errors = _views(lesson, record, data)
    return errors, {block_id for block_id, view in views.items() if view.shows_image}


def stored_files(views: dict[str, StoredView]) -> dict[str, bytes]:
    """The files the stored displays publish beside the page (their rasters), by path."""
    return {
        name: content
        for view in views.values()
        for display in view.displays
        for name, content in display.files.items()
    }


def _views(
    lesson: Lesson, record: ExecutionRecord, data: bytes | None
) -> tuple[dict[str, StoredView], list[BuildError]]:
    if data is None:
        return {}, []
    try:
        expected = read_expected(lesson, data)
    except BuildError:  # the validate stage's warning says so
        return {}, []
    views, errors = {}, []
    for block in lesson.runnable_blocks():
        stored, fresh = expected.blocks.get(block.id), record.blocks.get(block.id)
        if stored is None or fresh is None:
            continue
        missing = unshown(stored, fresh)
        if not missing:
            continue
        displays = []
        if "displays" in missing:
            for number, bundle in enumerate(stored.displays, start=1):
                context = DisplayContext(block.code.alt, f"{block.id}-stored-{number}")
                try:
                    view = bundle_view(bundle, context)
                except UnshowableOutput as problem:
                    errors.append(
                        BuildError(
                            f"a display {block.label} stored in {expected.source} cannot be "
                            f"shown: {problem}",
                            lesson.path,
                            block.code.line,
                            hint=f"remove '{block.id}' from {lesson.front.expected_outputs}",
                        )
                    )
                    continue
                if view is not None:
                    displays.append(view)
        shown = StoredView(
            Path(expected.source).name,
            stored.cell,
            stored.stdout if "stdout" in missing else "",
            stored.stderr if "stderr" in missing else "",
            stored.display if "value" in missing else "",
            tuple(displays),
        )
        if shown.shows_image and not block.code.alt:
            errors.append(
                BuildError(
                    f"{block.label} shows an image stored in {expected.source}, but has no "
                    "text alternative",
                    lesson.path,
                    block.code.line,
                    hint="add ':alt: what the image shows' on the line after the block's "
                    "opening ':::' line",
                )
            )
        views[block.id] = shown
    return views, errors
