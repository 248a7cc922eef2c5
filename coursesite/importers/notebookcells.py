"""A notebook's cell as the import reads it, whatever file it came from (an .ipynb, MyST or
jupytext Markdown, a percent script): its source, where the author finds it, its stored
outputs and the options that shape what the lesson makes of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


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


def raw_cell(source: str, where: str, metadata: dict) -> Cell:
    """A raw cell, which nbconvert passes on as it is: with no format (older notebooks'
    plain notes between cells) or Markdown's, its text is prose; for another format (HTML,
    LaTeX, reStructuredText: what only that output shows) it is left out, said either way."""
    format = str(metadata.get("raw_mimetype") or metadata.get("format") or "").strip()
    if format in _PROSE_FORMATS and source.strip():
        said = f"a raw cell{f' of {format}' if format else ''}: its text is kept as prose"
        return Cell("markdown", source, where, dropped=[said])
    said = f"a raw cell of {format}, which only output in that format shows: it was left out"
    return Cell("markdown", "", where, dropped=[said] if source.strip() else [])


_PROSE_FORMATS = {"", "text/markdown", "text/x-markdown", "text/plain"}


def where_in(cell: Cell, text: str) -> str:
    """Where the author finds `text` of the cell: its own line in a text notebook (a
    Markdown cell there runs from one code cell to the next), the cell in an .ipynb."""
    return where_at(cell, cell.source.find(text))


def where_line(cell: Cell, line: str, before: int = 0) -> str:
    """Where the author finds the cell's line that reads `line` (stripped) after `before`
    lines alike; where_in's answer for `line` where the cell has no such line."""
    offset, alike = 0, 0
    for written in cell.source.split("\n"):
        if written.strip() == line:
            if alike == before:
                return where_at(cell, offset)
            alike += 1
        offset += len(written) + 1
    return where_in(cell, line)


def where_at(cell: Cell, offset: int) -> str:
    """Where the author finds the character at `offset` of the cell's source (where_in)."""
    start = re.fullmatch(r"line (\d+)", cell.where)
    if not start or offset < 0:
        return cell.where
    return f"line {int(start.group(1)) + cell.source.count(chr(10), 0, offset)}"
