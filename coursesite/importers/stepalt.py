"""The text alternative an imported step gets for the images it shows (issue #26).

A step's `:alt:` describes every image it shows: a figure it draws, an image it displays
(IPython's `Image` or `SVG`, a Pillow image, an object's `_repr_png_`), an image its
notebook stored. The import takes it from the cell's MyST-NB options (notebooks.figure_alt)
or writes the TODO placeholder, which the build accepts and `build.py check` lists; it never
writes one the build would refuse: options describing an image that the cell's stored run
did not show (a caption on a table) are left out, and the report says so.
"""

from __future__ import annotations

import re

from coursesite.importers.notebooks import Cell
from coursesite.lesson.completeness import PLACEHOLDER

ALT_PLACEHOLDER = f"{PLACEHOLDER} what the figure shows"

# Code that plots or shows an image: where a notebook stores no outputs for a cell (a MyST
# notebook never does), this is all there is to tell whether it draws.
_SHOWS_IMAGE = re.compile(
    r"\b(?:plt|pyplot|matplotlib|Image|SVG)\b|\.(?:plot|imshow|scatter|hist|bar)\("
    r"|_repr_(?:png|jpeg|svg)_"
)


def stored_anything(cell: Cell) -> bool:
    return bool(cell.stdout or cell.display or cell.stderr.strip() or cell.rich)


def step_alt(cell: Cell, code: str) -> str:
    """The step's `:alt:` text: the notebook's, else the placeholder; "" when the step
    needs none. A placeholder the code does not need is listed by check, not refused."""
    if cell.drew:
        return cell.alt or ALT_PLACEHOLDER
    if cell.alt and not stored_anything(cell):  # no stored run says what it shows
        return cell.alt
    return ALT_PLACEHOLDER if _SHOWS_IMAGE.search(code) else ""


def alt_notes(cell: Cell, code: str, number: int) -> list[str]:
    """Report lines: the step's alt text to write, and the notebook's left out."""
    alt, notes = step_alt(cell, code), []
    if cell.alt and alt != cell.alt:
        notes.append(
            f"{cell.where}: its MyST-NB options describe an image ({cell.alt!r}), but its "
            "stored run showed none: the text is left out of the step's :alt:, which "
            "describes images only"
        )
    if alt == ALT_PLACEHOLDER:
        notes.append(
            f"{cell.where}: it {'shows' if cell.drew else 'may show'} a figure or image, "
            f"which the page shows under step {number}: describe it in the step's :alt: "
            "option"
        )
    return notes
