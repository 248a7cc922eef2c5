"""The import report's notes, each said once: a note that several places of the notebook
share (`{figure} needs :alt:` at five lines) is one line that names them all, where the
first of them stood, so that a long tutorial's report stays a list to work through."""

from __future__ import annotations

import re

# A note's places: the notebook's cells or lines, and the lesson's lines it wrote them to.
_PLACE = r"(?:lesson )?(?:line|cell) \d+"
_WHERE = re.compile(rf"^({_PLACE}(?:, {_PLACE})*): (.*)$", re.S)


def grouped_notes(notes: list[str]) -> list[str]:
    places: dict[str, list[str]] = {}  # a note's text -> where it was said, in order
    order: list[str] = []  # notes without a place stay as they are, in order
    for note in notes:
        found = _WHERE.match(note)
        if not found:
            order.append(note)
            continue
        where, text = found.groups()
        if text not in places:
            places[text] = []
            order.append(text)
        places[text] += [place for place in where.split(", ") if place not in places[text]]
    return [f"{', '.join(places[text])}: {text}" if text in places else text for text in order]
