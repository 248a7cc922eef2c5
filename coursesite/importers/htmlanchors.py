"""An empty HTML anchor on a line of its own (`<a id="setup"></a>` above a heading), which
notebooks use as a target for `[text](#setup)` links: a MyST target line, `(setup)=`, says the
same, and the links reach it. Done before the notebook's labels are read (lessonimport.py),
so that they count it; an anchor inside a line of prose stays inline HTML (inlinehtml.py).
"""

from __future__ import annotations

import re
from dataclasses import replace

from coursesite.importers.fences import code_lines
from coursesite.importers.notebookcells import Cell, where_in

# `<a id="x"></a>`, `<a name='x'/>`: an anchor that holds nothing, alone on its line.
_EMPTY_ANCHOR = re.compile(
    r"""^[ \t]*<a\s+(?:id|name)\s*=\s*(?:"([^"<>]+)"|'([^'<>]+)')\s*(?:/>|>\s*</a\s*>)[ \t]*$""",
    re.I | re.M,
)


def anchors_as_targets(cells: list[Cell], notes: list[str]) -> list[Cell]:
    """`cells`, each empty anchor on a line of its own in Markdown written as a MyST target
    line; a line of `notes` for each."""
    kept = []
    for cell in cells:
        if cell.kind != "markdown" or not _EMPTY_ANCHOR.search(cell.source):
            kept.append(cell)
            continue
        code = code_lines(cell.source)
        lines = cell.source.split("\n")
        for at, line in enumerate(lines):
            found = _EMPTY_ANCHOR.fullmatch(line)
            if found is None or at in code:
                continue
            label = (found.group(1) or found.group(2)).strip()
            # A target line opens a block: after prose, a blank line ends the paragraph.
            lines[at] = ("\n" if at and lines[at - 1].strip() else "") + f"({label})="
            notes.append(
                f"{where_in(cell, line)}: the empty anchor {line.strip()} became the MyST "
                f"target ({label})=, which links to #{label} reach"
            )
        kept.append(replace(cell, source="\n".join(lines)))
    return kept
