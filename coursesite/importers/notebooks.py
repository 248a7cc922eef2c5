"""Read a Jupyter notebook (.ipynb), a MyST/jupytext Markdown notebook or a jupytext
percent script (pyscripts) into cells.

Only what a lesson can use is kept: each cell's source, and for code cells the output the
notebook stored (printed text, messages on stderr, the value of a bare last expression, the
rich displays (images, HTML, ...) it showed, the exception it ended with).
`lessonimport` turns the cells into a lesson.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from coursesite.config.yamlmodel import yaml_error
from coursesite.errors import BuildError, course_text
from coursesite.execution.fdcapture import terminal_text
from coursesite.importers.celloptions import (
    dropped_options,
    figure_alt,
    figure_label,
    unread_options,
)
from coursesite.importers.jupytextmarkdown import python_fences

NOTEBOOK_HINT = (
    "give a Jupyter notebook (.ipynb, nbformat 4), a MyST Markdown notebook (.md) or a "
    "Python script in jupytext's percent format (.py)"
)


@dataclass
class Cell:
    kind: str  # "markdown" or "code"
    source: str
    where: str  # "cell 3" or "line 40": where the author finds it in the notebook
    stdout: str = ""
    stderr: str = ""
    display: str = ""  # text/plain of the stored execute_result
    # The MIME bundles of its stored displays and value that hold more than text (an image,
    # HTML, ...), in order: only the types a page may show (outputs/displays.py).
    rich: list[dict[str, str]] = field(default_factory=list)
    last_display: str = ""  # text/plain of a display() that was the cell's last output
    last_image: str = ""  # text/plain of a displayed image that was the cell's last output
    shows_last: bool = False  # the lesson ends the step with that value (lessonimport)
    shell: bool = False  # it ran shell commands: its stored output is not the lesson's
    raises: str = ""  # the exception the stored run ended with
    error: str = ""  # its last line, as the notebook showed it ("SyntaxError: invalid syntax")
    drew: bool = False  # the stored outputs hold an image (a figure, a displayed image)
    tags: tuple[str, ...] = ()
    alt: str = ""  # the text alternative its metadata gives what it draws (figure_alt)
    figure_label: str = ""  # the name MyST-NB's `figure` option gives it, for {numref}
    attachments: dict[str, bytes] = field(default_factory=dict)  # `attachment:NAME` images
    unreadable: list[str] = field(default_factory=list)  # attachments that are not base64
    dropped: list[str] = field(default_factory=list)  # the report on what it lost or became
    load: str = ""  # MyST-NB's `load` option: the file the cell's code is read from

    def __post_init__(self) -> None:
        self.tags = tuple(_MYST_NB_TAGS.get(tag, tag) for tag in self.tags)


# MyST-NB accepts its tags spelled with underscores too (`remove_cell`): they mean the same.
_MYST_NB_TAGS = {
    tag.replace("-", "_"): tag
    for tag in (
        "remove-cell",
        "remove-input",
        "remove-output",
        "remove-stdout",
        "remove-stderr",
        "hide-cell",
        "hide-input",
        "hide-output",
        "raises-exception",
        "skip-execution",
    )
}


def read_notebook(path: Path) -> list[Cell]:
    """The notebook's cells, or a BuildError naming the file and what is wrong."""
    try:
        data = path.read_bytes()
    except OSError as problem:
        raise BuildError(f"cannot read the notebook: {problem.strerror}", path) from None
    text = course_text(data, path)
    if path.suffix == ".ipynb":
        return _ipynb_cells(text, path)
    if path.suffix in (".md", ".myst"):
        return _myst_cells(text, path)
    if path.suffix == ".py":  # jupytext's percent format: its cells named by their lines
        from coursesite.importers.pyscripts import percent_notebook

        notebook, places = percent_notebook(text, path)
        return _checked_cells(notebook, path, places)
    raise BuildError(f"'{path.suffix}' is not a notebook file type", path, hint=NOTEBOOK_HINT)


# -- .ipynb --------------------------------------------------------------------------------


class _Malformed(Exception):
    """A part of the notebook is not of the shape nbformat 4 gives it; says which."""


def _ipynb_cells(text: str, path: Path) -> list[Cell]:
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
        return _checked_cells(notebook, path)
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
            cells.append(_raw_cell(source, where, metadata))
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


def _raw_cell(source: str, where: str, metadata: dict) -> Cell:
    """A raw cell, which nbconvert passes on as it is: with no format (older notebooks'
    plain notes between cells) or Markdown's, its text is prose; for another format (HTML,
    LaTeX, reStructuredText: what only that output shows) it is left out, said either way."""
    format = str(metadata.get("raw_mimetype") or metadata.get("format") or "")
    if format in _PROSE_FORMATS and source.strip():
        said = f"a raw cell{f' of {format}' if format else ''}: its text is kept as prose"
        return Cell("markdown", source, where, dropped=[said])
    said = f"a raw cell of {format}, which only output in that format shows: it was left out"
    return Cell("markdown", "", where, dropped=[said] if source.strip() else [])


_PROSE_FORMATS = {"", "text/markdown", "text/x-markdown", "text/plain"}


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


# -- MyST / jupytext Markdown ------------------------------------------------------------

_CODE_CELL = re.compile(r"^\{code-cell\}\s*(\S*)")
# A cell of Pandoc's Markdown for notebooks: `::: {.cell .code execution_count="4"}`.
_PANDOC_CELL = re.compile(r"^:{3,}\s*\{[^}\n]*\.cell\b", re.M)
_CELL_BREAK = re.compile(r"^\+\+\+(\s.*)?$")
# A {code-cell}'s argument: the language of its code, as the kernel reads it.
_PYTHON_CELLS = frozenset({"", "python", "python3", "ipython", "ipython3", "py"})


def _myst_cells(text: str, path: Path) -> list[Cell]:
    lines = text.splitlines()
    start = _front_matter_end(lines, path)
    tokens = MarkdownIt("commonmark").parse("\n".join(lines[start:]))
    code_fences = [
        token
        for token in tokens
        if token.type == "fence" and _CODE_CELL.match(token.info) and token.map
    ]
    for fence in code_fences:
        found = _CODE_CELL.match(fence.info)
        language = found.group(1) if found else ""
        if language.lower() not in _PYTHON_CELLS:
            raise BuildError(
                f"this code cell is {language}, not Python",
                path,
                (fence.map or [0])[0] + start + 1,
                hint="lessons run Python code only: import a notebook whose kernel is Python",
            )
    code_cells = [
        (fence, _myst_code_cell(fence.content, _first_line(fence) + start, path))
        for fence in code_fences
    ] or [  # no {code-cell}: jupytext's Markdown format, whose ```python blocks are cells
        (
            fence,
            Cell(
                "code", fence.content.rstrip("\n"), f"line {_first_line(fence) + start}", tags=tags
            ),
        )
        for fence, tags in python_fences(tokens)
    ]
    if not code_cells and (pandoc := _PANDOC_CELL.search(text)):
        raise BuildError(
            "this is Pandoc's Markdown of a notebook (its cells are ::: {.cell ...} divs), "
            "which the import does not read",
            path,
            text[: pandoc.start()].count("\n") + 1,
            hint=f"convert it back to a notebook with Pandoc (`pandoc {path.name} -o "
            f"{path.stem}.ipynb`, with its images beside it) and import the .ipynb",
        )
    if not code_cells:
        raise BuildError(
            "no code cells: neither ```{code-cell} blocks (MyST) nor ```python blocks "
            "(jupytext's Markdown format)",
            path,
            hint="a MyST notebook marks its code cells with ```{code-cell} ipython3",
        )
    cells: list[Cell] = []
    position = start
    for fence, cell in code_cells:
        assert fence.map is not None
        cells += _markdown_cells(lines, position, fence.map[0] + start)
        cells.append(cell)
        position = fence.map[1] + start
    cells += _markdown_cells(lines, position, len(lines))
    return cells


def _first_line(fence: Token) -> int:
    """The file line of the fence's opening (1-based), counted from the front matter's end."""
    return (fence.map or [0])[0] + 1


def _front_matter_end(lines: list[str], path: Path) -> int:
    """The index of the first line after the front matter (0 when there is none)."""
    if not lines or lines[0].strip() != "---":
        return 0
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            header = _yaml_mapping("\n".join(lines[1:index]), path, 2, "front matter")
            jupyter = header.get("jupyter")  # where jupytext's Markdown format keeps it
            kernel = (jupyter if isinstance(jupyter, dict) else header).get("kernelspec")
            language = kernel.get("language", "python") if isinstance(kernel, dict) else "python"
            if language != "python":
                raise BuildError(
                    f"the notebook's kernel runs {language}, not Python",
                    path,
                    2,
                    hint="lessons run Python code only",
                )
            return index + 1
    raise BuildError("front matter opened on line 1 is never closed", path, 1)


def _markdown_cells(lines: list[str], first: int, end: int) -> list[Cell]:
    """The Markdown between two code cells, split where jupytext put `+++` cell breaks."""
    cells: list[Cell] = []
    chunk: list[str] = []
    chunk_start = first
    tags: tuple[str, ...] = ()
    for index in range(first, end):
        if _CELL_BREAK.match(lines[index]):
            cells.append(_markdown_cell(chunk, chunk_start, tags))
            chunk, chunk_start = [], index + 1
            tags = _break_tags(lines[index])
        else:
            chunk.append(lines[index])
    cells.append(_markdown_cell(chunk, chunk_start, tags))
    return [cell for cell in cells if cell.source.strip()]


def _markdown_cell(chunk: list[str], start: int, tags: tuple[str, ...]) -> Cell:
    """The cell of `chunk`, which began at index `start`: `where` is its first line of text,
    so that a line within it is `where` plus the line's place in its source (where_in)."""
    blank = next((n for n, line in enumerate(chunk) if line.strip()), 0)
    text = "\n".join(chunk[blank:]).rstrip("\n")
    return Cell("markdown", text, f"line {start + blank + 1}", tags=tags)


def where_in(cell: Cell, text: str) -> str:
    """Where the author finds `text` of the cell: its own line in a text notebook (a
    Markdown cell there runs from one code cell to the next), the cell in an .ipynb."""
    return where_at(cell, cell.source.find(text))


def where_at(cell: Cell, offset: int) -> str:
    """Where the author finds the character at `offset` of the cell's source (where_in)."""
    start = re.fullmatch(r"line (\d+)", cell.where)
    if not start or offset < 0:
        return cell.where
    return f"line {int(start.group(1)) + cell.source.count(chr(10), 0, offset)}"


def _break_tags(line: str) -> tuple[str, ...]:
    """The tags of the Markdown cell a jupytext break starts: `+++ {"tags": [...]}`."""
    try:
        metadata = json.loads(line[3:].strip() or "{}")
    except ValueError:
        return ()
    tags = metadata.get("tags", []) if isinstance(metadata, dict) else []
    return tuple(tag for tag in tags if isinstance(tag, str)) if isinstance(tags, list) else ()


def _myst_code_cell(content: str, line: int, path: Path) -> Cell:
    """A code cell (its fence on file line `line`); its `:key: value` options or `---` YAML
    header are read for tags."""
    body = content.splitlines()
    options: dict = {}
    tags: tuple[str, ...] = ()
    if body and body[0].strip() == "---":
        closing = next((i for i, row in enumerate(body[1:], 1) if row.strip() == "---"), None)
        if closing is None:
            raise BuildError("code cell options opened with '---' are never closed", path, line)
        options = _yaml_mapping("\n".join(body[1:closing]), path, line + 2, "code cell options")
        tags, body = _tags(options.get("tags"), path, line), body[closing + 1 :]
    else:
        at = line + 1
        while body and body[0].startswith(":") and ":" in body[0][1:]:
            key, _, value = body[0][1:].partition(":")
            options[key.strip()] = value
            if key.strip() == "tags":
                tags = _tags(_yaml(value, path, at), path, at)
            body, at = body[1:], at + 1
    load = options.get("load")
    return Cell(
        "code",
        "\n".join(body),
        f"line {line}",
        tags=tags,
        alt=figure_alt(options),
        figure_label=figure_label(options),
        dropped=dropped_options(options) + unread_options(options),
        load=load.strip() if isinstance(load, str) else "",
    )


def _yaml(text: str, path: Path, line: int) -> object:
    """`text`, YAML that starts on file line `line`; an error names the line at fault."""
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as problem:
        raise yaml_error(problem, path, line) from None


def _yaml_mapping(text: str, path: Path, line: int, what: str) -> dict:
    found = _yaml(text, path, line)
    if found is None:
        return {}
    if not isinstance(found, dict):
        raise BuildError(f"the {what} must be a mapping of keys to values", path, line)
    return found


def _tags(value: object, path: Path, line: int) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise BuildError("a code cell's tags must be a list of words", path, line)
    return tuple(value)
