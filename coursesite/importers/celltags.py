"""What a notebook cell's tags make of its step: MyST-NB's hide-*, and remove-* folded,
since a page never removes a line main.py runs or prints (each with a report line); nbval's
nbval-ignore-output, kept."""

from __future__ import annotations

from coursesite.importers.notebookcells import Cell
from coursesite.lesson.model import OUTPUT_VARIES


def step_tags(cell: Cell, notes: list[str]) -> list[str]:
    """The cell's tags that fold what the page shows, and nbval's that says its output
    differs on every run. A page never removes a step's code or output (readers see every
    line main.py runs and prints): it folds them."""
    folded = set()
    for tag in cell.tags:
        if tag in ("hide-input", "hide-output"):
            folded.add(tag)
        elif tag == "hide-cell":  # MyST-NB: the code and its output, under one toggle
            folded.update(("hide-input", "hide-output"))
        elif tag == "remove-cell":
            folded.update(("hide-input", "hide-output"))
            notes.append(
                f"{cell.where}: tagged remove-cell; the page folds it instead (hide-cell): "
                "main.py runs it, as the notebook did, and readers see every line it runs"
            )
        elif tag in ("remove-input", "remove-output"):
            folded.add(tag.replace("remove", "hide"))
            notes.append(
                f"{cell.where}: tagged {tag}; the page folds it instead "
                f"({tag.replace('remove', 'hide')}): readers see every line main.py runs"
            )
        elif tag in ("remove-stdout", "remove-stderr"):
            folded.update(_one_stream(cell, tag, notes))
        elif tag == OUTPUT_VARIES:  # nbval's: no build compares the cell's output
            folded.add(tag)
    return sorted(folded)


def _one_stream(cell: Cell, tag: str, notes: list[str]) -> list[str]:
    """MyST-NB's remove-stdout and remove-stderr: a page folds a step's output whole, so
    it folds it (hide-output) unless the notebook showed the other stream or a value,
    which folding would hide too."""
    other = cell.stderr.strip() if tag == "remove-stdout" else cell.stdout or cell.display
    if other or cell.rich:
        notes.append(
            f"{cell.where}: tagged {tag}; the page shows the step's output whole, since "
            "folding it would hide what the notebook shows besides: make the code print "
            f"less to {tag.removeprefix('remove-')} if it is noise"
        )
        return []
    notes.append(
        f"{cell.where}: tagged {tag}; the page folds the step's output instead (hide-output): "
        "readers see everything main.py prints"
    )
    return ["hide-output"]
