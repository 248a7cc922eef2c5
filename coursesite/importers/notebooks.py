"""Read a Jupyter notebook (.ipynb), a MyST/jupytext Markdown notebook (mystnotebooks) or
a jupytext percent script (pyscripts) into cells.

Only what a lesson can use is kept: each cell's source, and for code cells the output the
notebook stored (printed text, messages on stderr, the value of a bare last expression, the
rich displays (images, HTML, ...) it showed, the exception it ended with).
`lessonimport` turns the cells into a lesson.
"""

from __future__ import annotations

import base64
import binascii
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from coursesite.errors import BuildError, course_text
from coursesite.execution.fdcapture import terminal_text
from coursesite.importers.celloptions import dropped_options, figure_alt, figure_label
from coursesite.importers.notebookcells import Cell, raw_cell

NOTEBOOK_HINT = (
    "give a Jupyter notebook (.ipynb, nbformat 4), a MyST Markdown notebook (.md) or a "
    "Python script in jupytext's percent format or sphinx-gallery's (.py)"
)


@dataclass
class NotebookFile:
    """A notebook's cells and its own metadata (an .ipynb's `metadata`, a Markdown
    notebook's front matter), where per-file settings of MyST-NB and nbsphinx live."""

    cells: list[Cell]
    metadata: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what reading it changed or left out


def read_notebook(path: Path) -> list[Cell]:
    """The notebook's cells, or a BuildError naming the file and what is wrong."""
    return read_notebook_file(path).cells


def read_notebook_file(path: Path) -> NotebookFile:
    """The notebook's cells and metadata, or a BuildError naming the file and what is wrong."""
    try:
        data = path.read_bytes()
    except OSError as problem:
        raise BuildError(f"cannot read the notebook: {problem.strerror}", path) from None
    text = course_text(data, path)
    if path.suffix == ".ipynb":
        return _ipynb_cells(text, path)
    if path.suffix in (".md", ".myst"):
        from coursesite.importers.mystnotebooks import myst_notebook

        return NotebookFile(*myst_notebook(text, path))
    if path.suffix == ".py":  # sphinx-gallery's or jupytext's percent format
        from coursesite.importers.galleryscripts import gallery_notebook, is_gallery_script
        from coursesite.importers.pyscripts import percent_notebook

        if is_gallery_script(text):
            notebook, places, notes = gallery_notebook(text)
            return NotebookFile(_checked_cells(notebook, path, places), {}, notes)

        notebook, places = percent_notebook(text, path)
        return NotebookFile(_checked_cells(notebook, path, places), notebook.get("metadata", {}))
    raise BuildError(f"'{path.suffix}' is not a notebook file type", path, hint=NOTEBOOK_HINT)


# -- .ipynb --------------------------------------------------------------------------------


class _Malformed(Exception):
    """A part of the notebook is not of the shape nbformat 4 gives it; says which."""


def _ipynb_cells(text: str, path: Path) -> NotebookFile:
    import nbformat

    try:
        # nbformat warns once for each part that breaks its schema: thousands of lines for a
        # large notebook. What the import needs is checked below, with one clear error.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            notebook = nbformat.reads(text, as_version=4)
    except Exception as problem:  # nbformat raises JSON, schema and version errors alike
        raise BuildError(
            f"not a readable Jupyter notebook: {str(problem).splitlines()[0]}",
            path,
            hint=NOTEBOOK_HINT,
        ) from None
    try:
        return NotebookFile(_checked_cells(notebook, path), notebook.get("metadata", {}))
    except _Malformed as problem:
        raise BuildError(
            f"not a readable Jupyter notebook: {problem}", path, hint=NOTEBOOK_HINT
        ) from None


def _mapping(value: object, where: str) -> dict:
    if not isinstance(value, dict):
        raise _Malformed(f"{where} is {type(value).__name__}, not a mapping")
    return value


def _text(value: object, where: str) -> str:
    """Text as nbformat stores it: a string, or a list of lines."""
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(value)
    if not isinstance(value, str):
        raise _Malformed(f"{where} is {type(value).__name__}, not text")
    return value


def _checked_cells(notebook: dict, path: Path, places: list[str] | None = None) -> list[Cell]:
    metadata = _mapping(notebook.get("metadata", {}), "metadata")
    kernelspec = _mapping(metadata.get("kernelspec", {}), "metadata.kernelspec")
    language_info = _mapping(metadata.get("language_info", {}), "metadata.language_info")
    language = kernelspec.get("language") or language_info.get("name", "python")
    if language != "python":
        raise BuildError(
            f"the notebook's kernel runs {language}, not Python",
            path,
            hint="lessons run Python code only",
        )
    cells = []
    listed = notebook.get("cells", [])
    if not isinstance(listed, list):
        raise _Malformed(f"cells is {type(listed).__name__}, not a list")
    for number, cell in enumerate(listed, start=1):
        where = places[number - 1] if places else f"cell {number}"
        cell = _mapping(cell, where)
        if cell.get("cell_type") not in ("markdown", "code", "raw"):
            continue
        metadata = _mapping(cell.get("metadata", {}), f"{where}'s metadata")
        tags = metadata.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
            raise _Malformed(f"{where}'s tags are not a list of words")
        source = _text(cell.get("source", ""), f"{where}'s source")
        if cell["cell_type"] == "raw":
            cells.append(raw_cell(source, where, metadata))
            continue
        imported = Cell(
            cell["cell_type"],
            source,
            where,
            tags=tuple(tags),
            alt=figure_alt(metadata),
            figure_label=figure_label(metadata),
            dropped=dropped_options(metadata),
        )
        if cell["cell_type"] == "code":
            outputs = cell.get("outputs", [])
            if not isinstance(outputs, list):
                raise _Malformed(f"{where}'s outputs are not a list")
            _stored_outputs(imported, [_mapping(o, f"an output of {where}") for o in outputs])
        else:
            attachments = _mapping(cell.get("attachments", {}), f"{where}'s attachments")
            imported.attachments, imported.unreadable = _attachments(attachments)
        cells.append(imported)
    return cells


def _attachments(attachments: dict) -> tuple[dict[str, bytes], list[str]]:
    """The images pasted into a Markdown cell, by name (the first image type of each), and
    the names of those whose data cannot be decoded."""
    found, unreadable = {}, []
    for name, bundle in attachments.items():
        if not isinstance(bundle, dict):
            unreadable.append(name)
            continue
        for mime, data in bundle.items():
            if mime == "image/svg+xml":  # stored as text, not base64
                found[name] = ("".join(data) if isinstance(data, list) else data).encode()
                break
            if mime.startswith("image/"):
                try:
                    found[name] = base64.b64decode(
                        "".join(data) if isinstance(data, list) else data
                    )
                except (binascii.Error, TypeError, ValueError):
                    unreadable.append(name)
                break
    return found, unreadable


# What a page shows of a display, richest first (displays.py); other types (widgets, a
# library's own JSON) show only their text/plain, in a notebook viewer as on a page.
RICH_TYPES = (
    "text/html",
    "image/svg+xml",
    "image/png",
    "image/jpeg",
    "text/markdown",
    "text/latex",
)


def _stored_outputs(cell: Cell, outputs: list) -> None:
    for output in outputs:
        cell.last_display = cell.last_image = ""
        kind = output.get("output_type")
        data = _mapping(output.get("data", {}), f"the data of an output of {cell.where}")
        for mime in data:
            if mime not in (*RICH_TYPES, "text/plain") and not mime.startswith("image/"):
                kept = "its text is kept" if "text/plain" in data else "it is left out"
                cell.dropped.append(f"a stored output of type {mime}, which no page shows: {kept}")
        if kind in ("execute_result", "display_data") and any(m.startswith("image/") for m in data):
            cell.drew = True  # a figure, or an image it displayed: the step needs its :alt:
        if kind in ("execute_result", "display_data") and any(t in data for t in RICH_TYPES):
            shown = {
                mime: _text(data[mime], f"the {mime} of an output of {cell.where}")
                for mime in (*RICH_TYPES, "text/plain")
                if mime in data
            }
            if "text/plain" in shown:  # as the notebook shows it, without colour codes
                shown["text/plain"] = terminal_text(shown["text/plain"])
            cell.rich.append(shown)
        if kind == "stream" and output.get("name") == "stdout":
            cell.stdout += _text(output.get("text", ""), f"an output of {cell.where}")
        elif kind == "stream" and output.get("name") == "stderr":
            cell.stderr += _text(output.get("text", ""), f"an output of {cell.where}")
        elif kind == "execute_result":
            cell.display = terminal_text(str(data.get("text/plain", ""))).rstrip("\n")
        elif kind == "display_data" and any(key.startswith("image/") for key in data):
            # display(image) last: the step ends with the image as its value (lessonimport).
            cell.last_image = _text(data.get("text/plain", ""), f"an output of {cell.where}")
        elif kind == "display_data" and "text/plain" in data:
            # display(value): the lesson prints the value's repr in its place (lessonimport).
            cell.last_display = _text(data["text/plain"], f"an output of {cell.where}")
            cell.stdout += cell.last_display.rstrip("\n") + "\n"
        elif kind == "error":
            # The name goes into the lesson's `:raises:` line: only a dotted Python name may.
            name = str(output.get("ename", ""))
            cell.raises = name if re.fullmatch(r"[A-Za-z_][\w.]{0,99}", name) else "Exception"
            # Without the kernel's file of the cell: "invalid syntax (3311942670.py, line 1)".
            value = re.sub(r" \([^()]*, line \d+\)$", "", str(output.get("evalue", "")))
            cell.error = f"{name}: {value}" if value else name
    # The streams as the notebook showed them: what a progress bar drew over is gone.
    cell.stdout, cell.stderr = terminal_text(cell.stdout), terminal_text(cell.stderr)
