"""Read a MyST Markdown notebook (```{code-cell} blocks) or jupytext's Markdown format
(```python blocks as cells, `+++` between Markdown cells) into the cells of notebooks.py.

A cell's options (`:tags:`, MyST-NB's figure options, `:load:`) are read as the .ipynb's
metadata would be; a ```{raw-cell} is a raw cell. Every error names the file line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from coursesite.config.yamlmodel import yaml_error
from coursesite.errors import BuildError
from coursesite.importers.celloptions import (
    dropped_options,
    figure_alt,
    figure_label,
    unread_options,
)
from coursesite.importers.jupytextmarkdown import python_fences
from coursesite.importers.notebookcells import Cell, raw_cell

_CODE_CELL = re.compile(r"^\{code-cell\}\s*(\S*)")
_RAW_CELL = re.compile(r"^\{raw-cell\}")
# A cell of Pandoc's Markdown for notebooks: `::: {.cell .code execution_count="4"}`.
_PANDOC_CELL = re.compile(r"^:{3,}\s*\{[^}\n]*\.cell\b", re.M)
_CELL_BREAK = re.compile(r"^\+\+\+(\s.*)?$")
# A {code-cell}'s argument: the language of its code, as the kernel reads it.
_PYTHON_CELLS = frozenset({"", "python", "python3", "ipython", "ipython3", "py"})


def myst_notebook(text: str, path: Path) -> tuple[list[Cell], dict]:
    """The notebook's cells and its front matter."""
    lines = text.splitlines()
    start, header = _front_matter(lines, path)
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
    raw_cells = [
        (token, _mystraw_cell(token.content, _first_line(token) + start, path))
        for token in tokens
        if token.type == "fence" and _RAW_CELL.match(token.info) and token.map
    ]
    cells: list[Cell] = []
    position = start
    for fence, cell in sorted(code_cells + raw_cells, key=lambda pair: _first_line(pair[0])):
        assert fence.map is not None
        cells += _markdown_cells(lines, position, fence.map[0] + start)
        cells.append(cell)
        position = fence.map[1] + start
    cells += _markdown_cells(lines, position, len(lines))
    if start == 0 and (said := _mistyped_front_matter(lines)) and cells:
        cells[0].dropped.append(said)
    return cells, header


# What jupytext writes in a notebook's front matter.
_HEADER_KEYS = re.compile(r"^(?:jupytext|kernelspec|jupyter):")


def _mistyped_front_matter(lines: list[str]) -> str:
    """What to say of a front matter whose opening line is not `---` (QuantEcon's eigen_I
    opens with `co---`): read as text, it becomes a heading of YAML on the page."""
    first = lines[0].strip() if lines else ""
    closing = next((n for n, line in enumerate(lines[1:40], 1) if line.strip() == "---"), 0)
    if first == "---" or not first.endswith("---") or not closing:
        return ""
    if not any(_HEADER_KEYS.match(line) for line in lines[1:closing]):
        return ""
    return (
        f"its first line, '{first}', opens what looks like the notebook's front matter "
        f"(closed on line {closing + 1}), which only a first line of '---' opens: it was read "
        "as text (a heading of YAML on the page); make its first line '---' and import again"
    )


def _first_line(fence: Token) -> int:
    """The file line of the fence's opening (1-based), counted from the front matter's end."""
    return (fence.map or [0])[0] + 1


def _front_matter(lines: list[str], path: Path) -> tuple[int, dict]:
    """The index of the first line after the front matter (0 when there is none), and the
    front matter."""
    if not lines or lines[0].strip() != "---":
        return 0, {}
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
            return index + 1, header
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


def _break_tags(line: str) -> tuple[str, ...]:
    """The tags of the Markdown cell a jupytext break starts: `+++ {"tags": [...]}`."""
    try:
        metadata = json.loads(line[3:].strip() or "{}")
    except ValueError:
        return ()
    tags = metadata.get("tags", []) if isinstance(metadata, dict) else []
    return tuple(tag for tag in tags if isinstance(tag, str)) if isinstance(tags, list) else ()


def _myst_code_cell(content: str, line: int, path: Path) -> Cell:
    """A code cell (its fence on file line `line`), with the tags and figure options of
    its `:key: value` options or `---` YAML header."""
    options, tags, body = _cell_options(content, line, path, "code cell")
    # `:file:`, the older name QuantEcon's lectures give MyST-NB's `:load:` on an empty cell.
    load = options.get("load") or (options.get("file") if not "".join(body).strip() else None)
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


def _mystraw_cell(content: str, line: int, path: Path) -> Cell:
    """A ```{raw-cell} (jupytext's MyST form of a raw cell), read as an .ipynb's raw cell
    with the format its options name."""
    options, _, body = _cell_options(content, line, path, "raw cell")
    return raw_cell("\n".join(body), f"line {line}", options)


def _cell_options(
    content: str, line: int, path: Path, what: str
) -> tuple[dict, tuple[str, ...], list[str]]:
    """A cell fence's options (`:key: value` lines or a `---` YAML header), its tags, and
    the lines of its body after them."""
    body = content.splitlines()
    options: dict = {}
    tags: tuple[str, ...] = ()
    if body and body[0].strip() == "---":
        closing = next((i for i, row in enumerate(body[1:], 1) if row.strip() == "---"), None)
        if closing is None:
            raise BuildError(f"{what} options opened with '---' are never closed", path, line)
        options = _yaml_mapping("\n".join(body[1:closing]), path, line + 2, f"{what} options")
        return options, _tags(options.get("tags"), path, line), body[closing + 1 :]
    at = line + 1
    while body and body[0].startswith(":") and ":" in body[0][1:]:
        key, _, value = body[0][1:].partition(":")
        options[key.strip()] = value
        if key.strip() == "tags":
            tags = _tags(_yaml(value, path, at), path, at)
        body, at = body[1:], at + 1
    return options, tags, body


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
