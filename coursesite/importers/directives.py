"""An imported notebook's admonitions, settled so that the lesson builds at once.

MyST authors give admonitions options and classes lessons lack: `:name:` labels, Sphinx
theme classes such as `margin` or `full-width`. Lessons refuse those at their line; the
import drops them instead, each with a line of the report, and keeps what lessons show
(`dropdown`, `toggle`, and for `{admonition}` the kind it looks like).
"""

from __future__ import annotations

import re

from coursesite.blocks.builtin import ADMONITION_KINDS, CLOSED_CLASSES
from coursesite.importers.fences import code_lines

_OPENING = re.compile(r"^ {0,3}(?:`{3,}|~{3,}|:{3,})\{([\w-]+)\}(.*)$")
_OPTION = re.compile(r"^( {0,3}):([\w-]+):(.*)$")


def settle_admonitions(text: str, where: str, notes: list[str]) -> str:
    """`text` (a Markdown cell) with each admonition's options and classes reduced to those
    a lesson takes; each one dropped is noted in `notes`."""
    code = code_lines(text)  # an admonition written out as an example is code
    settled: list[str] = []
    kind = ""
    for number, line in enumerate(text.split("\n")):
        option = _OPTION.match(line) if kind and number not in code else None
        if option is None:
            opening = _OPENING.match(line) if number not in code else None
            kind = opening.group(1) if opening and _is_admonition(opening.group(1)) else ""
            settled.append(line)
            continue
        indent, name, value = option.groups()
        if name != "class":
            notes.append(
                f"{where}: the option :{name}: of {{{kind}}} is not one lessons take: it "
                "was dropped"
            )
        elif kept := _kept_classes(kind, value, where, notes):
            settled.append(f"{indent}:class: {' '.join(kept)}")
    return "\n".join(settled)


def _is_admonition(kind: str) -> bool:
    return kind in ADMONITION_KINDS or kind == "admonition"


def _kept_classes(kind: str, value: str, where: str, notes: list[str]) -> list[str]:
    known = (*CLOSED_CLASSES, *(ADMONITION_KINDS if kind == "admonition" else ()))
    kept = [css for css in value.split() if css in known]
    for css in value.split():
        if css not in known:
            notes.append(
                f"{where}: the class '{css}' of {{{kind}}} is not one lessons show: it was dropped"
            )
    return kept
