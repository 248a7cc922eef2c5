"""A notebook's footnotes, written where a lesson shows them: in the section that refers to
them.

Markdown lets a footnote be defined anywhere in the document (QuantEcon's lectures define
theirs at the end, under their own heading); a lesson renders each section of prose (between
headings, steps and blocks) with its own footnotes, and the build refuses a reference whose
definition is in another section. So each definition is written after the first paragraph
that refers to it in every section that does, and taken from where it stood when nothing
there refers to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from coursesite.importers.fences import code_lines
from coursesite.importers.notebookcells import Cell, where_at

_DEFINITION = re.compile(r"^\[\^([^\]\s]+)\]:")
# Any mark that does not open a definition's line, a colon after it or not ("Euler asked
# [^1]:" in nx-guides' Euler page): _scan reads the definitions' lines apart.
_REFERENCE = re.compile(r"\[\^([^\]\s]+)\]")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")


@dataclass(frozen=True)
class _Definition:
    cell: int
    section: int  # its heading section within the cell
    first: int  # its lines: first..end (exclusive), a trailing blank line included
    end: int


def place_footnotes(cells: list[Cell]) -> list[str]:
    """Moves, in place, each footnote definition of the Markdown cells into the sections
    that refer to it (see the module's text); the report's lines, one a footnote moved."""
    definitions: dict[str, list[_Definition]] = {}
    references: dict[str, dict[tuple[int, int], int]] = {}  # section -> its first line
    for index, cell in enumerate(cells):
        if cell.kind == "markdown":
            _scan(index, cell.source.split("\n"), definitions, references)
    edits: dict[int, list[tuple[int, int, list[str]]]] = {}  # cell -> (at, end, lines)
    emptied: dict[int, set[int]] = {}  # cell -> the sections a definition was taken from
    notes = []
    for label, defined in definitions.items():
        sections = references.get(label, {})
        first = defined[0]
        text = cells[first.cell].source.split("\n")[first.first : first.end]
        body = [line for line in text if line.strip()] or text
        owned = {(d.cell, d.section) for d in defined}
        wanted = [(key, line) for key, line in sections.items() if key not in owned]
        if not wanted:
            continue
        for (referring, _), line in wanted:
            at = _paragraph_end(cells[referring].source.split("\n"), line)
            edits.setdefault(referring, []).append((at, at, ["", *body]))
        for definition in defined:
            if (definition.cell, definition.section) not in sections:
                edits.setdefault(definition.cell, []).append((definition.first, definition.end, []))
                emptied.setdefault(definition.cell, set()).add(definition.section)
        where = where_at(cells[first.cell], _offset(cells[first.cell].source, first.first))
        notes.append(
            f"{where}: footnote [^{label}] is written in the section that refers to it, "
            "where a lesson shows it (each section of a lesson shows its own footnotes)"
        )
    for index, changes in edits.items():
        lines = cells[index].source.split("\n")
        for at, end, inserted in sorted(changes, key=lambda change: change[0], reverse=True):
            lines[at:end] = inserted
        emptied_here = emptied.get(index, set())
        cells[index].source = "\n".join(_without_empty_headings(lines, emptied_here))
    for label in sorted(references.keys() - definitions.keys()):
        notes += _marks_as_text(cells, label, references[label])
    return notes


def _marks_as_text(
    cells: list[Cell], label: str, sections: dict[tuple[int, int], int]
) -> list[str]:
    """A mark `[^label]` the notebook defines nowhere (nx-guides' `[^1] M. E. J. Newman,
    ...`, a definition without its colon) is text where MyST shows it: written escaped, so
    that the build reads no footnote to look for."""
    mark = re.compile(rf"(?<!\\)\[\^{re.escape(label)}\]")  # defined nowhere: no definition
    for index in dict.fromkeys(cell for cell, _ in sections):
        lines = cells[index].source.split("\n")
        code = code_lines(cells[index].source)
        lines = [
            line if n in code else mark.sub(lambda found: "\\" + found[0], line)
            for n, line in enumerate(lines)
        ]
        cells[index].source = "\n".join(lines)
    (index, _), line = next(iter(sections.items()))
    where = where_at(cells[index], _offset(cells[index].source, line))
    return [
        f"{where}: [^{label}] marks a footnote the notebook defines nowhere (a definition is "
        f"a line '[^{label}]: the note'): it is shown as the text [^{label}], as MyST shows it"
    ]


def _without_empty_headings(lines: list[str], sections: set[int]) -> list[str]:
    """`lines` without the heading of each of `sections` (numbered as _scan numbers them)
    left with nothing under it once its footnotes moved (QuantEcon's "## Notes"), nor a
    subsection: a heading over nothing would title nothing on the page."""
    code = code_lines("\n".join(lines))
    headings = [n for n, line in enumerate(lines) if n not in code and _HEADING.match(line)]
    dropped = set()
    for section in sections:
        if not 0 < section <= len(headings):
            continue
        at = headings[section - 1]
        end = headings[section] if section < len(headings) else len(lines)
        under = end < len(lines) and _level(lines[end]) > _level(lines[at])  # a subsection
        if not "".join(lines[at + 1 : end]).strip() and not under:
            dropped.add(at)
    return [line for n, line in enumerate(lines) if n not in dropped]


def _scan(
    index: int,
    lines: list[str],
    definitions: dict[str, list[_Definition]],
    references: dict[str, dict[tuple[int, int], int]],
) -> None:
    code = code_lines("\n".join(lines))
    section, number = 0, 0
    while number < len(lines):
        line = lines[number]
        if number in code:
            number += 1
            continue
        if _HEADING.match(line):
            section += 1
        if defined := _DEFINITION.match(line):
            end = _definition_end(lines, number)
            definitions.setdefault(defined.group(1), []).append(
                _Definition(index, section, number, end)
            )
            number = end
            continue
        for label in _REFERENCE.findall(line):
            references.setdefault(label, {}).setdefault((index, section), number)
        number += 1


def _definition_end(lines: list[str], first: int) -> int:
    """Past a definition's lines: its paragraph, the indented ones after a blank line, and
    one blank line after it. The next definition may follow on the very next line
    (nx-guides' Euler page lists its references so): it starts a definition of its own."""
    end = first + 1
    while end < len(lines):
        if _DEFINITION.match(lines[end]):
            return end
        if lines[end].strip():
            end += 1
        elif end + 1 < len(lines) and lines[end + 1].startswith(("    ", "\t")):
            end += 2
        else:
            return end + 1
    return end


def _paragraph_end(lines: list[str], line: int) -> int:
    end = line + 1
    while end < len(lines) and lines[end].strip():
        end += 1
    return end


def _offset(source: str, line: int) -> int:
    return len("\n".join(source.split("\n")[:line])) + 1


def _level(heading: str) -> int:
    return len(heading.lstrip(" ")) - len(heading.lstrip(" ").lstrip("#"))
