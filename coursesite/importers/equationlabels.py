"""Sphinx keeps the labels of equations (a `{math}` block's `:label:`, `$$ (label)`) apart
from the labels of everything else, so a lecture may give its top and its first equation
the same one (QuantEcon's Solow lecture: `(solow)=` and `:label: solow`). A lesson's
targets are one set, where that is a duplicate the build refuses: such an equation's label
is renamed before anything else reads the notebook, and the `{eq}` references to it with
it, so that each reference still reaches what it meant.
"""

from __future__ import annotations

import re
from dataclasses import replace

from coursesite.importers.fences import code_lines, directives
from coursesite.importers.notebookcells import Cell, where_in
from coursesite.importers.references import MATH_LABEL, NotebookLabels
from coursesite.markup.myst import ROLE_SOURCE, role_kind, split_role_text

_LABEL_OPTION = re.compile(r"^(\s*:label:[ \t]*)(\S.*?)[ \t]*$")


def equations_apart(cells: list[Cell], notes: list[str]) -> list[Cell]:
    """`cells`, with each equation label that another target of the notebook also uses
    renamed (`solow` -> `eq-solow`), with its `{eq}` references; a line of `notes`
    says so for each."""
    labels = NotebookLabels.of([cell.source for cell in cells if cell.kind == "markdown"])
    taken = labels.equations | labels.others
    renamed = {label: _free(label, taken) for label in sorted(labels.equations & labels.others)}
    if not renamed:
        return cells
    kept = []
    for cell in cells:
        if cell.kind != "markdown":
            kept.append(cell)
            continue
        source = _renamed(cell.source, renamed)
        for label, new in renamed.items():
            if (line := _definition(cell.source, label)) is not None:
                notes.append(
                    f"{where_in(cell, line)}: equation label '{label}' is also the label of "
                    f"another target, which a lesson cannot tell apart: the equation's became "
                    f"'{new}', and the {{eq}} references to it with it"
                )
        kept.append(replace(cell, source=source))
    return kept


def _free(label: str, taken: set[str]) -> str:
    """`eq-label` (a reference shows it as "(label)", references.py), or with a number when
    the notebook has that label too."""
    new, number = f"eq-{label}", 2
    while new in taken:
        new, number = f"eq-{label}-{number}", number + 1
    return new


def _definition(text: str, label: str) -> str | None:
    """The line of `text` that gives an equation `label`, or None."""
    lines = text.split("\n")
    for directive in directives(text):
        if directive.name == "math" and directive.label() == label:
            return lines[directive.first]
    for match in MATH_LABEL.finditer(text):
        if match.group(2).strip() == label:
            return match.group(0)
    return None


def _renamed(text: str, renamed: dict[str, str]) -> str:
    """`text` with the equation labels and `{eq}` references of `renamed` renamed."""
    lines = text.split("\n")
    for directive in directives(text):
        if directive.name != "math" or directive.label() not in renamed:
            continue
        for number in range(directive.first + 1, directive.end):
            option = _LABEL_OPTION.match(lines[number])
            if option and option.group(2).strip("\"'") in renamed:
                lines[number] = option.group(1) + renamed[option.group(2).strip("\"'")]
                break
    code = code_lines(text)
    for number, line in enumerate(lines):
        if number in code:
            continue
        line = MATH_LABEL.sub(
            lambda m: f"{m.group(1)}({renamed.get(m.group(2).strip(), m.group(2))}){m.group(3)}",
            line,
        )
        lines[number] = ROLE_SOURCE.sub(lambda m: _reference(m, renamed), line)
    return "\n".join(lines)


def _reference(match: re.Match[str], renamed: dict[str, str]) -> str:
    shown, target = split_role_text(match.group(2))
    if role_kind(match.group(1)) != "eq" or target not in renamed:
        return match.group(0)
    content = f"{shown} <{renamed[target]}>" if shown else renamed[target]
    return f"{{{match.group(1)}}}`{content}`"
